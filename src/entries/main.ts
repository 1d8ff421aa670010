import { runMain } from '../index.ts'

await runMain(process)
