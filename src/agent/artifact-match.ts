/**
 * Which FILE artifacts `download_artifacts` asks for, by its patterns (picomatch). Apart from
 * artifacts.ts so that the step loads picomatch (62 KB) only when it downloads: work.ts imports
 * this file when the run has ended, never before its create.
 */
import picomatch from 'picomatch'
import type { ArtifactEntry } from './artifacts.ts'

/**
 * Whether a FILE artifact's `filepath` matches one of the patterns. `*`
 * stays within a folder and `**` crosses folders; a pattern without a `/`
 * matches the file's name in any folder (`review.json`, `*.md`).
 */
export function artifactMatcher(patterns: readonly string[]): (filepath: string) => boolean {
  const matchers = patterns.map((pattern) =>
    picomatch(pattern, { dot: true, basename: !pattern.includes('/'), nonegate: true }),
  )
  return (filepath) => {
    const normalized = filepath.replace(/\\/g, '/').replace(/^(\.\/)+/, '')
    return matchers.some((isMatch) => isMatch(normalized))
  }
}

/** The FILE artifacts to download: those with an ID and a path matching a pattern. */
export function artifactsToDownload(
  artifacts: readonly ArtifactEntry[],
  patterns: readonly string[],
): ArtifactEntry[] {
  if (patterns.length === 0) return []
  const matches = artifactMatcher(patterns)
  return artifacts.filter(
    (artifact) =>
      artifact.type === 'FILE' &&
      artifact.artifactUid !== undefined &&
      artifact.filepath !== undefined &&
      matches(artifact.filepath),
  )
}
