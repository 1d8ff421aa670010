/** The credit budgets, as the main step (before a run is created) and the report read them. */
import type { Amount } from '../model/money.ts'
import type { InputSource } from '../step-io.ts'
import { readAmount } from './values.ts'

/** Spending limits checked before a run is created (v1.2); undefined for none. */
export interface CreditBudgets {
  /** `daily_credit_budget`: this repository's runs of the last 24 hours. */
  readonly daily: Amount | undefined
  /** `pr_credit_budget`: this pull request's runs. */
  readonly pullRequest: Amount | undefined
}

/** `daily_credit_budget` and `pr_credit_budget`, each in credits or US dollars, or undefined. */
export function readCreditBudgets(source: InputSource): CreditBudgets {
  return {
    daily: readAmount('daily_credit_budget', source.get('daily_credit_budget')),
    pullRequest: readAmount('pr_credit_budget', source.get('pr_credit_budget')),
  }
}
