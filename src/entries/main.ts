/** The main step's entry, as dist/main.js is: hands the process to its door (runMain). */
import { keepYoungGenerationSmall, runMain } from '../index.ts'

keepYoungGenerationSmall()
await runMain(process)
