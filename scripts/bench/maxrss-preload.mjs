// Preloaded with `node --import` into the bundle under test: on exit, writes the process's peak
// resident set size (process.resourceUsage().maxRSS, in KiB) to the file named by
// BENCH_MAXRSS_FILE. Plain JavaScript, so that no TypeScript stripping is loaded into the
// process being measured.
import { writeFileSync } from 'node:fs'

const file = process.env.BENCH_MAXRSS_FILE
if (file) {
  process.on('exit', () => {
    writeFileSync(file, String(process.resourceUsage().maxRSS))
  })
}
