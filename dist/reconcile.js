if (process.env.RUNNER_DEBUG === '1') process.setSourceMapsEnabled(true)
const { runReconcile } = await import('./index.js')
await runReconcile(process)
