/** The main step's entry, as dist/main.js is: hands the process to its door (runMain). */
import { runMain } from '../index.ts'

await runMain(process)
