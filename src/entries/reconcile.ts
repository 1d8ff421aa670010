import { run } from '../reconcile/main.ts'

await run()
