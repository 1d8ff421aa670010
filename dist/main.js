if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runMain, keepYoungGenerationSmall } = await import('./index.js')
setImmediate(keepYoungGenerationSmall)
await runMain(process)
