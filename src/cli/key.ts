import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { errorMessage } from '../text/plain.ts'
import { KEY_FILE_VARIABLE, KEY_VARIABLE, UsageError } from './flags.ts'

/** The key: WARP_API_KEY, else the file WARP_API_KEY_FILE names (GitLab's file-type variables). */
export function readKey(env: NodeJS.ProcessEnv, cwd: string): string {
  const key = env[KEY_VARIABLE]?.trim()
  if (key) return key
  const file = env[KEY_FILE_VARIABLE]?.trim()
  if (!file) {
    throw new UsageError(
      `${KEY_VARIABLE} is not set: export the Warp API key in it, or name a file holding it in ${KEY_FILE_VARIABLE} (a flag would show in the process list).`,
    )
  }
  const fromFile = readText(cwd, file, KEY_FILE_VARIABLE).trim()
  if (!fromFile) throw new UsageError(`${KEY_FILE_VARIABLE} names an empty file.`)
  return fromFile
}

/** A file's text; UsageError naming `what` when it cannot be read. */
export function readText(cwd: string, path: string, what: string): string {
  try {
    return readFileSync(resolve(cwd, path), 'utf8')
  } catch (error) {
    throw new UsageError(`${what} cannot be read: ${errorMessage(error)}`)
  }
}
