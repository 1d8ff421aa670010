if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runPost } = await import('./index.js')
await runPost(process)
