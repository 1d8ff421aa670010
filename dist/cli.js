#!/usr/bin/env node
const { runCli } = await import('./index.js')
process.exitCode = await runCli(process.argv.slice(2), new URL('../action.yml', import.meta.url))
