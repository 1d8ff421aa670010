/** The report action's entry, as dist/report.js is: hands the process to its door. */
import { runReport } from '../index.ts'

await runReport(process)
