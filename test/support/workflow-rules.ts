/**
 * The project's rules for a workflow that uses the action, shared by the tests of the examples
 * and of the snippets in the README and docs/: which steps are the action's, and what each
 * step's inputs need of the workflow's token (docs/permissions.md).
 */

/** A step that runs this action, under any owner, path or version. */
export const ACTION_REF = /^[\w.-]+\/cloud-agent-run-action(?:\/[\w./-]+)?@[\w./-]+$/

/** The reconcile action (reconcile/action.yml), from the same repository and bundle. */
export const RECONCILE_REF = /^[\w.-]+\/cloud-agent-run-action\/reconcile@[\w./-]+$/

/** The report action (report/action.yml), likewise. */
export const REPORT_REF = /^[\w.-]+\/cloud-agent-run-action\/report@[\w./-]+$/

export interface Step {
  uses?: string
  if?: string
  name?: string
  id?: string
  run?: string
  env?: Record<string, string>
  with?: Record<string, unknown>
}

/** What a step's inputs need of the workflow's token (docs/permissions.md): permission → level. */
export function permissionsNeeded(step: Step): Record<string, 'read' | 'write'> {
  const w = step.with ?? {}
  const on = (input: string) => w[input] === true || w[input] === 'true'
  const needed: Record<string, 'read' | 'write'> = {}
  // A step that writes a check run itself, through GitHub's CLI.
  if (/gh api [^\n]*check-runs/.test(step.run ?? '')) return { checks: 'write' }
  if (RECONCILE_REF.test(step.uses ?? '')) {
    return { actions: 'read', 'pull-requests': 'write', issues: 'write', statuses: 'write' }
  }
  if (!ACTION_REF.test(step.uses ?? '')) return needed
  // approval writes the waiting comment, and reads the pull request, its reviews and permissions.
  const approval = w['approval'] === 'forks' || w['approval'] === 'always'
  if (on('comment') || on('continue_run') || on('pull_request_review') || approval) {
    needed['pull-requests'] = 'write'
  }
  if (on('commit_status')) needed.statuses = 'write'
  // previous_run: steer reads the pull request's head, compares commits, and, when cancelled,
  // lists the workflow's runs for a newer one.
  if (w['previous_run'] === 'steer') {
    needed['pull-requests'] ??= 'read'
    needed.contents = 'read'
    needed.actions = 'read'
  }
  if (on('check_run')) needed.checks = 'write'
  return needed
}
