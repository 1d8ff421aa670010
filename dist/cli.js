#!/usr/bin/env node
import * as nodeModule from 'node:module'
nodeModule.enableCompileCache?.()
const { commandIo, keepYoungGenerationSmall, runCli } = await import('./index.js')
setImmediate(keepYoungGenerationSmall)
process.exitCode = await runCli(process.argv.slice(2), new URL('./inputs.json', import.meta.url), commandIo(process))
