#!/usr/bin/env node
const { commandIo, runCli } = await import('./index.js')
process.exitCode = await runCli(process.argv.slice(2), new URL('../action.yml', import.meta.url), commandIo(process))
