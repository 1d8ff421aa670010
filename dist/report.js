if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runReport, keepYoungGenerationSmall } = await import('./index.js')
setImmediate(keepYoungGenerationSmall)
await runReport(process)
