if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runReport } = await import('./index.js')
await runReport(process)
