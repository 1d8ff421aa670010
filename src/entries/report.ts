/** The report action's entry, as dist/report.js is: hands the process to its door. */
import { keepYoungGenerationSmall, runReport } from '../index.ts'

keepYoungGenerationSmall()
await runReport(process)
