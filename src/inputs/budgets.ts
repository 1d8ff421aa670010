/** The credit budgets, as the main step (before a run is created) and the report read them. */
import type { InputSource } from '../step-io.ts'
import { readCredits } from './values.ts'

/** Spending limits checked before a run is created (v1.2); undefined for none. */
export interface CreditBudgets {
  /** `daily_credit_budget`: this repository's runs of the last 24 hours. */
  readonly daily: number | undefined
  /** `pr_credit_budget`: this pull request's runs. */
  readonly pullRequest: number | undefined
}

/** `daily_credit_budget` and `pr_credit_budget`, each a number of credits or undefined. */
export function readCreditBudgets(source: InputSource): CreditBudgets {
  return {
    daily: readCredits('daily_credit_budget', source.get('daily_credit_budget')),
    pullRequest: readCredits('pr_credit_budget', source.get('pr_credit_budget')),
  }
}
