/** Sent as User-Agent, so the service's operators can tell this action's traffic apart. */
export const USER_AGENT = 'cloud-agent-run-action/1'
