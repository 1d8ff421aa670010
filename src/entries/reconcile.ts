/** The reconcile action's entry, as dist/reconcile.js is: hands the process to its door. */
import { runReconcile } from '../index.ts'

await runReconcile(process)
