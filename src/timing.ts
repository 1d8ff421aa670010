/**
 * The step's timing budget, in one place: how often it polls, how long each
 * wait may last, and what is left for a cancel when the runner is about to
 * kill the step. Every wait in the action takes its bounds from here, so the
 * whole of a step's time can be read (and reasoned about) on one page.
 *
 * All durations are milliseconds.
 */

// ── The poll schedule ────────────────────────────────────────────────────────

/** The `poll_interval` default, and the shortest interval the input accepts. */
export const POLL_INTERVAL = { defaultMs: 5_000, minMs: 100 } as const

/**
 * Later polls space out in proportion to the run's age: a change is noticed
 * within max(poll_interval, 5% of the elapsed time), and never more than
 * `maxGrownDelayMs` late unless the user asked for a longer interval.
 */
export const POLL_GROWTH = { share: 0.05, maxGrownDelayMs: 30_000 } as const

/** The longest delay a Node timer holds; a longer one would fire at once, in a busy loop. */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** Polls in a row that may fail (after the client's own retries) before the step gives up. */
export const POLL_FAILURE_BUDGET = 5

/** How long a new run's 404 counts as read-after-write lag: tens of seconds, then "not found". */
export const NEW_RUN_NOT_FOUND_GRACE_MS = 30_000

/** The runs a page of a set's poll lists: the service's largest page (one page per 500 in flight). */
export const SET_LIST_PAGE = 500

/**
 * A run of a set that the poll's list leaves out (more than a page of the set's runs changed
 * after it) is unchanged; it is still read on its own once it has gone this long unread.
 */
export const SET_UNLISTED_RECHECK_MS = 60_000

/** The longest a follow-up's new pass may go unseen before the run's state is taken as it is. */
export const NEW_PASS_GRACE_MS = 30_000

// ── Requests the step cannot do without ──────────────────────────────────────

/** However close the step's timeout, a create, a read or a follow-up gets this long. */
export const MIN_REQUEST_MS = 5_000

/**
 * Looking for the run of a create whose answer was lost: the list can lag
 * behind writes by seconds. The main step looks about 7 s (`delaysMs`); the
 * post step, which has minutes before the runner's force-kill, a minute.
 */
export const CREATE_LOOKUP = {
  delaysMs: [0, 1_000, 2_000, 4_000],
  /** The longest one lookup request may take. */
  requestMs: 5_000,
  /** How much older than the lookup a run matched by its request (not its tag) may be. */
  slackMs: 60_000,
  postDeadlineMs: 60_000,
  postPauseMs: 2_000,
} as const

// ── Every request to the service ─────────────────────────────────────────────

/**
 * One request: each attempt may last `attemptMs`, from sending to the last byte; a failed one
 * is tried again `maxRetries` times (rate-limit refusals up to `refusalRetries` times, however
 * few `maxRetries` allows), after a pause that doubles from `initialDelayMs` up to
 * `maxDelayMs`, or the service's own Retry-After, capped at `maxHintMs`.
 */
export const REQUEST_RETRIES = {
  attemptMs: 30_000,
  maxRetries: 2,
  refusalRetries: 8,
  initialDelayMs: 500,
  maxDelayMs: 8_000,
  maxHintMs: 60_000,
} as const

/** An artifact's download: one attempt may last this long. */
export const DOWNLOAD_ATTEMPT_MS = 60_000

// ── Cancels ──────────────────────────────────────────────────────────────────

/**
 * The runner kills the step 10 s after SIGINT (7.5 s, then SIGTERM, then
 * 2.5 s). The cancel requests must be answered well inside what is left; the
 * process ends itself `exitMarginMs` after its budget, before the kill.
 */
export const SIGNAL_CANCEL = {
  afterInterruptMs: 6_500,
  afterTerminateMs: 2_000,
  /** Of the budget, the share a create or follow-up in flight may take to answer first. */
  decideShare: 0.6,
  exitMarginMs: 500,
} as const

/**
 * The cancel that follows a timeout, a cap or an error: at once, and briefly,
 * so the step ends within seconds even when the service hangs. A cancel that
 * fails leaves the run unsettled, so the post step tries again.
 */
export const CANCEL_AFTER_TIMEOUT = { timeoutMs: 5_000, budgetMs: 8_000 } as const

/** However little time is left, one cancel request gets this long (except after a signal). */
export const MIN_CANCEL_REQUEST_MS = 1_000

/** The pause between cancels of a run that a follow-up is about to restart. */
export const RECANCEL_PAUSE_MS = 250

/**
 * How long the post step's cancel may take, including waiting for a run to
 * restart after its follow-up (to cancel it), and a run still being prepared
 * that answers 409 for a while.
 */
export const POST_CANCEL_DEADLINE_MS = 30_000

/** One quick read of a run after its cancel, so that the outputs show where it ended. */
export const REREAD_AFTER_CANCEL_MS = 500

// ── Lookups that only choose words ───────────────────────────────────────────

/** The "which run did I supersede" lookup is worth a log line, never the wait. */
export const SUPERSEDED_LOOKUP_TIMEOUT_MS = 3_000

/**
 * How long a cancelled run's step looks for the run that replaced it: the
 * newer step cancels before it creates, so the newer run can appear a moment
 * after the cancel is seen. Each look is one quick request.
 */
/** The one read of the child runs a run's agent started, at the run's end: brief, never retried. */
export const CHILDREN_READ_MS = 5_000

export const SUPERSEDING_LOOKUP = {
  forMs: 5_000,
  pauseMs: 1_000,
  requestMs: 5_000,
  /** How soon after the cancel the newer run must be created to have caused it. */
  causeWindowMs: 60_000,
} as const

/**
 * previous_run: steer, after the create: each look for an older run of the key (right after
 * it, and at every poll) is one quick request, no retries, no Retry-After: a look that fails is
 * taken again at the next poll, and must never hold the wait.
 */
export const KEY_LOOK_MS = 5_000

// ── While waiting, and after ─────────────────────────────────────────────────

/** At most one conversation read per this long, besides state changes (120 reads an hour). */
export const PROGRESS_READ_INTERVAL_MS = 30_000

/** The longest stretch without a log line while waiting is five minutes; this leaves slack. */
export const HEARTBEAT_INTERVAL_MS = 4 * 60_000

/** Reading the conversation once, after the run: one retry, and never long. */
export const CONVERSATION_READ = { timeoutMs: 30_000, maxRetries: 1 } as const

/** Reading the answer and downloading files after the run: a bounded time, never the outcome. */
export const AGENT_WORK_DEADLINE_MS = 5 * 60_000

/**
 * The bound every wait after the create keeps, whatever the service does: polls,
 * progress and BLOCKED reads, the cancel after a timeout, a cap or an error, the
 * answer and the downloads all end within the `timeout` input plus this. The
 * cancel after a timeout takes at most `CANCEL_AFTER_TIMEOUT.budgetMs` of it; the
 * answer and the files get what is left (and at most `AGENT_WORK_DEADLINE_MS`).
 */
export const PAST_TIMEOUT_MS = 15_000

// ── Budgets and reconcile passes ─────────────────────────────────────────────

/**
 * The credit budgets, checked before the create: adding up the spend must never
 * hold the step for long (past the deadline, the step fails and creates nothing).
 * The daily budget's window is the last 24 hours; a budget reads at most
 * `maxPages` pages of 100 runs.
 */
export const CREDIT_BUDGET_CHECK = {
  deadlineMs: 60_000,
  dailyWindowMs: 24 * 60 * 60_000,
  maxPages: 20,
} as const

/**
 * One reconcile pass: it ends well inside a five-minute schedule, and runs not
 * reached by then are left to the next pass, which takes them up the same way.
 * It reads at most `maxPages` pages of 100 runs; each run's answer gets
 * `answerMs`, and the repository's comments, all their pages, `commentsMs`. A
 * step's comment is looked for from `commentsMarginMs` before its run's start.
 */
export const RECONCILE_PASS = {
  deadlineMs: 4 * 60_000,
  maxPages: 50,
  answerMs: 30_000,
  commentsMs: 30_000,
  commentsMarginMs: 60 * 60_000,
} as const

// ── GitHub ───────────────────────────────────────────────────────────────────

/** The longest a single GitHub call may take before the action gives up on it. */
export const GITHUB_CALL_DEADLINE_MS = 8_000

/**
 * GitHub can never hold the step: each call has a deadline of seconds, and the
 * writes still queued when the run has ended get a bounded time, so the step
 * ends about 15 s after the run's end even when GitHub stops answering.
 */
export const GITHUB_LIMITS = {
  /** How long `settled()` waits for the comment writes still on their way. */
  settleMs: 15_000,
  /** The longest secondary-rate-limit hint obeyed before the one retry. */
  maxRetryAfterMs: 3_000,
  /**
   * The pauses before asking again after a 5xx or a broken connection (GitHub's own advice
   * for its 502s). Every attempt shares one call's deadline, so retries never hold the step
   * longer than one call could.
   */
  transientPausesMs: [500, 1_500],
} as const

/**
 * How long the "head moved" note may wait for GitHub: a nicety, and the
 * comment's last write waits for it.
 */
export const HEAD_MOVED_DEADLINE_MS = 3_000

/** The pauses before looking again at a pull-request comment that another step writes too. */
export const COMMENT_RECHECK_PAUSES_MS = [300, 700] as const

/**
 * The longest a write to the key's comment is looked at, after it lands, for another step of the
 * key that may yet put back what it read before (GitHub has no compare-and-swap): until that step
 * can no longer do so, or this long. The comment's settle time less one call, so that the last
 * look ends before the settle gives up (and warns that GitHub is not answering).
 */
export const COMMENT_OUTLAST_MS = GITHUB_LIMITS.settleMs - GITHUB_CALL_DEADLINE_MS

// ── GitLab ───────────────────────────────────────────────────────────────────

/**
 * The command's merge-request note (src/gitlab/note.ts), as GitHub's calls: GitLab can never
 * hold the job. One call (all its attempts) lasts at most `callMs`; after a 5xx or a broken
 * connection it is asked again after each of `transientPausesMs`, inside the same deadline.
 */
export const GITLAB_LIMITS = {
  callMs: 8_000,
  transientPausesMs: [500, 1_500],
} as const
