import { runReport } from '../index.ts'

await runReport(process)
