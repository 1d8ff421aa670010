if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runMain } = await import('./index.js')
await runMain(process)
