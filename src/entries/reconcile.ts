import { runReconcile } from '../index.ts'

await runReconcile(process)
