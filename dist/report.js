if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runReport, keepYoungGenerationSmall } = await import('./index.js')
keepYoungGenerationSmall()
await runReport(process)
