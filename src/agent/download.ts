import { randomBytes } from 'node:crypto'
import { lstat, mkdir, realpath, rename, rm, writeFile } from 'node:fs/promises'
import { join, relative, resolve, sep } from 'node:path'
import type { ArtifactEntry, DownloadPlan } from './artifacts.ts'
import { errorMessage } from '../text/plain.ts'

/**
 * Writes the run's matching FILE artifacts into the download directory. A
 * download that fails, or a name that is refused, is a warning: it leaves the
 * run's outcome alone. Returns where each written artifact went.
 */
export interface DownloadDeps {
  /** The file's bytes: getArtifact, then its signed URL (without the key). Throws on failure. */
  fetchFile: (artifact: ArtifactEntry, signal: AbortSignal) => Promise<Uint8Array>
  warning: (message: string) => void
  info: (message: string) => void
  /** Makes API and agent text one inert log line. */
  safeForLog: (value: unknown) => string
  signal: AbortSignal
  /** Where a download directory may be: the workspace and RUNNER_TEMP, trusted as they are. */
  roots: readonly string[]
}

export async function downloadArtifacts(
  dir: string,
  plan: readonly DownloadPlan[],
  deps: DownloadDeps,
): Promise<Map<ArtifactEntry, string>> {
  const written = new Map<ArtifactEntry, string>()
  if (plan.length === 0) return written
  const root = await makeDownloadDir(dir, deps.roots)
  for (const entry of plan) {
    const shown = deps.safeForLog(entry.artifact.filepath ?? entry.artifact.name ?? '')
    if ('refused' in entry) {
      deps.warning(`Not downloading artifact "${shown}": ${entry.refused}; nothing was written.`)
      continue
    }
    if (deps.signal.aborted) break
    try {
      const bytes = await deps.fetchFile(entry.artifact, deps.signal)
      const path = await writeInside(root, dir, entry.path, bytes)
      written.set(entry.artifact, path)
      deps.info(`Downloaded artifact "${shown}" to ${path} (${bytes.byteLength} bytes).`)
    } catch (error) {
      const reason = deps.safeForLog(errorMessage(error))
      deps.warning(`Could not download artifact "${shown}": ${reason}`)
    }
  }
  return written
}

/**
 * Makes the download directory and returns its real path. It must lie inside
 * one of `roots`, and every folder from that root down to it must be a plain
 * folder, never a link (a checked-out pull request can hold `reports -> /`, or
 * `out -> .git`) and never `.git`: each missing one is made on its own and
 * checked, so nothing on the way can lead the files elsewhere.
 */
export async function makeDownloadDir(dir: string, roots: readonly string[]): Promise<string> {
  const target = resolve(dir)
  const root = roots
    .map((candidate) => resolve(candidate))
    .find((candidate) => target === candidate || target.startsWith(candidate + sep))
  if (root === undefined) {
    throw new Error(`${target} is outside the workspace and RUNNER_TEMP, where files may go`)
  }
  const parts = relative(root, target).split(sep).filter(Boolean)
  if (parts.some(isGitFolder)) throw new Error(`${target} is inside .git, where no file may go`)
  let folder = await realpath(root)
  for (const part of parts) {
    folder = join(folder, part)
    await plainFolder(folder)
  }
  return folder
}

/** `.git` as any file system may spell it (case-insensitive on macOS and Windows). */
function isGitFolder(name: string): boolean {
  return name.toLowerCase() === '.git'
}

/** Makes `folder` unless it exists, and makes sure it is a folder, not a link or a file. */
async function plainFolder(folder: string): Promise<void> {
  await mkdir(folder).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error
  })
  const stats = await lstat(folder)
  if (!stats.isDirectory()) {
    throw new Error(`${folder} is not a plain folder (a link or a file); nothing was written`)
  }
}

/**
 * Writes `bytes` to `path`, which lies under `dir` (whose real path is `root`),
 * and returns where it went.
 * The directory may hold symbolic links (a workspace checked out from a pull
 * request can): each folder on the way is made one at a time and must be a
 * real folder, not a link; the file is renamed into place, which replaces a
 * link rather than writing through it.
 */
async function writeInside(
  root: string,
  dir: string,
  path: string,
  bytes: Uint8Array,
): Promise<string> {
  const parts = relative(dir, path).split(sep)
  const name = parts.pop() ?? ''
  let folder = root
  for (const part of parts) {
    folder = join(folder, part)
    await plainFolder(folder)
  }
  const temporary = join(folder, `.download-${randomBytes(6).toString('hex')}.part`)
  try {
    await writeFile(temporary, bytes, { flag: 'wx' })
    await rename(temporary, join(folder, name))
  } finally {
    await rm(temporary, { force: true })
  }
  return join(folder, name)
}
