if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runPost, keepYoungGenerationSmall } = await import('./index.js')
setImmediate(keepYoungGenerationSmall)
await runPost(process)
