if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runReconcile, keepYoungGenerationSmall } = await import('./index.js')
setImmediate(keepYoungGenerationSmall)
await runReconcile(process)
