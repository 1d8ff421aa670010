import { describe, expect, it } from 'vitest'
import { renderGitHubMarkdown } from '../../scripts/render/github-markdown.ts'
import type { RunArtifact, RunItem } from '../../src/api/types.ts'
import { parseIsoDuration, pullRequestUrlOf } from '../../src/model/run-item.ts'
import { renderSummary, verdictOf } from '../../src/summary/summary.ts'
import type { StepOutcome } from '../../src/model/step.ts'

const run = (fields: Partial<RunItem> = {}): RunItem => ({
  run_id: 'run-123',
  state: 'SUCCEEDED',
  ...fields,
})

const finished = (fields: Partial<RunItem>, elapsedMs = 42_000): StepOutcome => ({
  kind: 'finished',
  run: run(fields),
  elapsedMs,
})

/** The table rows of a summary, each as [field, value], split on raw pipes. */
function tableRows(markdown: string): string[][] {
  return markdown
    .split('\n')
    .filter((line) => line.startsWith('|') && line !== '|---|---|')
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
}

function cell(markdown: string, field: string): string | undefined {
  return tableRows(markdown).find(([name]) => name === `**${field}**`)?.[1]
}

/** What a reader sees in a cell: entities decoded and <br> as a line break. */
function decoded(text: string): string {
  return text
    .replace(/<br>/g, '\n')
    .replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)))
}

/** Checks that the Markdown has a sound table and no HTML but the summary's own. */
function expectInert(markdown: string): void {
  // A link's destination written `](<…>)` is no tag.
  const outsideLinks = markdown.replace(/\]\(<[^<>\n]*>\)/g, '](…)')
  const tags = [...outsideLinks.matchAll(/<\/?([a-zA-Z][\w-]*)/g)].map((match) => match[1])
  expect(new Set(tags.filter((tag) => tag !== 'code' && tag !== 'br'))).toEqual(new Set())
  for (const row of tableRows(markdown)) {
    expect(row).toHaveLength(2)
    expect(row[0]).toMatch(/^\*\*[A-Z][\w ]*\*\*$/)
  }
  expect(markdown).not.toMatch(/\]\(\s*javascript:/i)
}

describe('renderSummary', () => {
  it('shows a succeeded run: title, run ID, state, duration from run_time and the session link', () => {
    const markdown = renderSummary(
      finished(
        {
          title: 'Nightly triage',
          run_time: 'PT2M30S',
          session_link: 'https://agents.example.com/sessions/abc',
          status_message: { message: 'stale message from an earlier attempt' },
        },
        999_000,
      ),
    )
    expect(markdown).toContain('✅')
    expect(markdown.split('\n')[0]).toBe('### ✅ Nightly triage succeeded')
    expect(markdown).toContain('The agent finished its task.')
    expect(cell(markdown, 'Outcome')).toBe('<code>succeeded</code>')
    expect(cell(markdown, 'Run')).toContain('run-123')
    // One fact, one row: SUCCEEDED is what succeeded says.
    expect(markdown).not.toContain('SUCCEEDED')
    expect(markdown).not.toMatch(/^\| \| \|$/m)
    expect(cell(markdown, 'Duration')).toBe('2m 30s')
    expect(cell(markdown, 'Session')).toBe(
      '[Open the session transcript](https://agents.example.com/sessions/abc)',
    )
    expect(cell(markdown, 'Status message')).toBeUndefined()
    expect(markdown).not.toContain('stale message')
    expect(markdown).not.toContain('[!WARNING]')
    expectInert(markdown)
  })

  it('falls back to the measured time when the service gives no run_time', () => {
    expect(cell(renderSummary(finished({}, 75_000)), 'Duration')).toBe('1m 15s')
    expect(cell(renderSummary(finished({ run_time: 'soon' }, 75_000)), 'Duration')).toBe('1m 15s')
  })

  it('shows a failed run with its status message', () => {
    const markdown = renderSummary(
      finished({ state: 'FAILED', status_message: { message: 'Tests failed: 3 of 120' } }),
    )
    expect(markdown).toContain('❌')
    expect(markdown.split('\n')[0]).toMatch(/ failed$/)
    expect(cell(markdown, 'Outcome')).toBe('<code>failed</code>')
    expect(decoded(cell(markdown, 'Status message') ?? '')).toBe('Tests failed: 3 of 120')
    expect(markdown).not.toContain('✅')
    expectInert(markdown)
  })

  it.each([
    ['ERROR', '❌'],
    ['CANCELLED', '⛔'],
  ])("shows a %s run as failed, with its outcome's icon", (state, icon) => {
    const markdown = renderSummary(finished({ state, status_message: { message: 'boom' } }))
    expect(markdown).toContain(`### ${icon} `)
    expect(markdown).not.toContain('✅')
    expect(cell(markdown, 'Status message')).toBe('boom')
  })

  it('says so when a failed run has no status message', () => {
    const markdown = renderSummary(finished({ state: 'FAILED' }))
    expect(cell(markdown, 'Status message')).toBeUndefined()
    expect(markdown).toContain('no status message')
  })

  it('names the timeout and the cancel of a timed-out run', () => {
    const markdown = renderSummary({
      kind: 'timed-out',
      run: run({ state: 'INPROGRESS' }),
      stateAtTimeout: 'INPROGRESS',
      elapsedMs: 601_000,
      timeoutMs: 600_000,
      cancel: { kind: 'cancelled' },
    })
    expect(markdown).toContain('### ⏱️ ')
    expect(markdown.split('\n')[0]).toContain('timed out')
    expect(markdown).toContain('timeout')
    expect(markdown).toContain('10m 0s')
    expect(markdown).toContain('INPROGRESS')
    expect(markdown).toContain('was cancelled')
    expectInert(markdown)
  })

  it('tells the user to cancel by hand when the cancel after a timeout failed', () => {
    const markdown = renderSummary({
      kind: 'timed-out',
      run: run({ state: 'INPROGRESS' }),
      stateAtTimeout: 'INPROGRESS',
      elapsedMs: 601_000,
      timeoutMs: 600_000,
      cancel: { kind: 'failed', message: 'POST /agent/runs/run-123/cancel → 500' },
    })
    expect(markdown).toContain('Could not cancel')
    expect(markdown).toContain('by hand')
    expectInert(markdown)
  })

  it('shows a run started without waiting', () => {
    const markdown = renderSummary({ kind: 'started', run: run({ state: 'QUEUED', title: 'T' }) })
    expect(markdown).toContain('🚀')
    expect(markdown.split('\n')[0]).toContain('not waiting')
    expect(cell(markdown, 'Outcome')).toContain('(state <code>QUEUED</code>)')
    expect(cell(markdown, 'Duration')).toBeUndefined()
    expect(markdown).not.toContain('❌')
    expectInert(markdown)
  })

  it('warns loudly about a BLOCKED run', () => {
    const timedOut = renderSummary({
      kind: 'timed-out',
      run: run({ state: 'BLOCKED' }),
      stateAtTimeout: 'BLOCKED',
      elapsedMs: 60_000,
      timeoutMs: 60_000,
      cancel: { kind: 'cancelled' },
    })
    expect(timedOut).toContain('[!WARNING]')
    expect(timedOut).toMatch(/BLOCKED[^\n]*person/)
    const started = renderSummary({ kind: 'started', run: run({ state: 'BLOCKED' }) })
    expect(started).toContain('[!WARNING]')
  })

  it('keeps the BLOCKED warning for a run cancelled after timing out while BLOCKED', () => {
    const markdown = renderSummary({
      kind: 'timed-out',
      run: run({ state: 'CANCELLED' }),
      stateAtTimeout: 'BLOCKED',
      elapsedMs: 60_000,
      timeoutMs: 60_000,
      cancel: { kind: 'cancelled' },
    })
    expect(markdown).toContain('[!WARNING]')
    expect(cell(markdown, 'Outcome')).toContain('(state <code>CANCELLED</code>)')
    expect(decoded(markdown)).toContain(
      'The run was still BLOCKED when the timeout input (1m 0s) ran out',
    )
  })

  it('renders an interrupted step that never had a run', () => {
    const markdown = renderSummary({ kind: 'interrupted', run: undefined })
    expect(markdown).toContain('### ⛔ ')
    expect(tableRows(markdown)).toEqual([])
  })

  describe('escaping', () => {
    const evilTitle = '<img src=x onerror=alert(1)> | evil\n| row'
    const evilMessage =
      '<script>alert(1)</script>\r\n| injected | row |\n**bold** `code` ![i](https://t.test/p.png)'

    it('makes HTML, pipes and line breaks in API text inert, without losing the text', () => {
      const markdown = renderSummary(
        finished({ state: 'FAILED', title: evilTitle, status_message: { message: evilMessage } }),
      )
      expect(markdown).not.toContain('<img')
      expect(markdown).not.toContain('<script')
      expect(markdown).not.toMatch(/^\| (row|injected)/m)
      expect(markdown).not.toContain('**bold**')
      expect(markdown).not.toContain('![i]')
      expectInert(markdown)
      expect(decoded(markdown.split('\n')[0] ?? '')).toBe(
        '### ❌ <img src=x onerror=alert(1)> | evil | row failed',
      )
      // Every character shown; the URL as a link, its own text.
      const url = 'https://t.test/p.png'
      expect(decoded(cell(markdown, 'Status message') ?? '')).toBe(
        evilMessage.replace('\r', '').replace(url, `[${url}](<${url}>)`),
      )
      expect(renderGitHubMarkdown(markdown)).not.toMatch(/<img|<script|<strong>bold/)
    })

    it('keeps a URL in the status message one link, parentheses and a pipe included', () => {
      const url = 'https://docs.example.test/envs(setup)?step=a|b'
      const markdown = renderSummary(
        finished({
          state: 'FAILED',
          status_message: { message: `Could not install; see ${url}.` },
        }),
      )
      expectInert(markdown)
      const html = renderGitHubMarkdown(markdown)
      expect(html).toContain(
        '<a href="https://docs.example.test/envs(setup)?step=a%7Cb">https://docs.example.test/envs(setup)?step=a|b</a>.',
      )
    })

    it('escapes a run ID and an unknown state from the API', () => {
      const markdown = renderSummary({
        kind: 'started',
        run: run({ run_id: '<b>id</b>|x', state: 'NEW_<i>STATE</i>|' }),
      })
      expect(markdown).not.toContain('<b>')
      expect(markdown).not.toContain('<i>')
      expectInert(markdown)
    })

    it('makes a Markdown link in the title inert', () => {
      const title = '[x](javascript:alert(1))'
      const markdown = renderSummary(finished({ title }))
      expect(markdown).not.toContain('[x]')
      expect(markdown).not.toContain('](')
      expectInert(markdown)
      expect(decoded(markdown.split('\n')[0] ?? '')).toBe(`### ✅ ${title} succeeded`)
    })

    it.each([
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      ' javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'not a url',
      '//evil.test/x',
    ])('omits the session link %j', (sessionLink) => {
      const markdown = renderSummary(finished({ session_link: sessionLink }))
      expect(cell(markdown, 'Session')).toBeUndefined()
      expect(markdown.toLowerCase()).not.toContain('javascript')
      expect(markdown).not.toContain('data:')
      expectInert(markdown)
    })

    it.each([
      ['https://x.test/a)b', 'https://x.test/a%29b'],
      ['https://x.test/a b)(c', 'https://x.test/a%20b%29%28c'],
      ['https://x.test/p?q="x"<y>', 'https://x.test/p?q=%22x%22%3Cy%3E'],
      ['http://x.test/a|b](javascript:alert(1))', undefined],
    ])('keeps the session link %j inside its link', (sessionLink, expected) => {
      const markdown = renderSummary(finished({ session_link: sessionLink }))
      const value = cell(markdown, 'Session')
      const match = /^\[Open the session transcript\]\(([^()\s<>"|]+)\)$/.exec(value ?? '')
      expect(match).not.toBeNull()
      if (expected !== undefined) expect(match?.[1]).toBe(expected)
      expectInert(markdown)
    })
  })
})

describe('parseIsoDuration', () => {
  it.each([
    ['PT2M30S', 150_000],
    ['PT45S', 45_000],
    ['PT0.5S', 500],
    ['PT1.5M', 90_000],
    ['PT1H', 3_600_000],
    ['PT1H2M3S', 3_723_000],
    ['P1D', 86_400_000],
    ['P1DT2H', 93_600_000],
    ['PT0S', 0],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseIsoDuration(text)).toBe(ms)
  })

  it.each(['', 'P', 'PT', '2m30s', 'PT2M30', 'pt2m30s', 'PT-5S', 'T2M', 'PT2S30M', ' PT2M'])(
    'rejects %j',
    (text) => {
      expect(parseIsoDuration(text)).toBeUndefined()
    },
  )
})

describe('verdictOf', () => {
  it('passes a SUCCEEDED run', () => {
    const verdict = verdictOf(finished({ state: 'SUCCEEDED' }))
    expect(verdict.passes).toBe(true)
    expect(verdict.failure).toBeUndefined()
  })

  it.each(['FAILED', 'ERROR', 'CANCELLED'])('fails a %s run with its status message', (state) => {
    const verdict = verdictOf(finished({ state, status_message: { message: 'Out of credits' } }))
    expect(verdict.passes).toBe(false)
    expect(verdict.failure).toContain(state)
    expect(verdict.failure).toContain('Out of credits')
  })

  it.each(['QUEUED', 'INPROGRESS', 'BLOCKED'])(
    'passes a run started without waiting, even while %s',
    (state) => {
      expect(verdictOf({ kind: 'started', run: run({ state }) }).passes).toBe(true)
    },
  )

  it('fails a timed-out run, naming the timeout', () => {
    const verdict = verdictOf({
      kind: 'timed-out',
      run: run({ state: 'INPROGRESS' }),
      stateAtTimeout: 'INPROGRESS',
      elapsedMs: 120_000,
      timeoutMs: 120_000,
      cancel: { kind: 'already-finished' },
    })
    expect(verdict.passes).toBe(false)
    expect(verdict.failure).toContain('timeout')
    expect(verdict.failure).toContain('2m 0s')
  })

  it('fails an interrupted step', () => {
    expect(verdictOf({ kind: 'interrupted', run: run({ state: 'INPROGRESS' }) }).passes).toBe(false)
    expect(verdictOf({ kind: 'interrupted', run: undefined }).passes).toBe(false)
  })
})

describe('pull request and usage', () => {
  const artifacts = [
    {
      artifact_type: 'PLAN',
      created_at: '2026-01-01T00:00:00Z',
      data: { document_uid: 'doc_1', url: 'https://example.test/plan' },
    },
    {
      artifact_type: 'PULL_REQUEST',
      created_at: '2026-01-01T00:00:00Z',
      data: { url: 'https://github.com/octo/app/pull/42', branch: 'fix' },
    },
  ] satisfies RunArtifact[]

  it('finds the pull request among the artifacts, and only an http(s) one', () => {
    expect(pullRequestUrlOf({ run_id: 'r', state: 'SUCCEEDED', artifacts })).toBe(
      'https://github.com/octo/app/pull/42',
    )
    expect(
      pullRequestUrlOf({
        run_id: 'r',
        state: 'SUCCEEDED',
        artifacts: [
          {
            artifact_type: 'PULL_REQUEST',
            created_at: '2026-01-01T00:00:00Z',
            data: { url: 'javascript:alert(1)', branch: 'fix' },
          },
        ],
      }),
    ).toBeUndefined()
    expect(pullRequestUrlOf({ run_id: 'r', state: 'SUCCEEDED' })).toBeUndefined()
  })

  it('shows the pull request and the usage in the summary', () => {
    // Credits and dollars make a cost row; the raw usage row is only for usage without them.
    const usage = { inference_cost: 12.5, cost_usd: '0.42', breakdown: { nested: 1 } }
    const markdown = renderSummary(
      finished({
        state: 'SUCCEEDED',
        artifacts,
        request_usage: usage,
      }),
    )
    expect(markdown).toContain(
      '| **Pull request** | [octo/app&#35;42](https://github.com/octo/app/pull/42) |',
    )
    expect(markdown).toContain('| **Cost** | 12.5 credits |')
    expect(markdown).not.toContain('nested')
    // Fields the schema does not name yet still show, when they are numbers or short strings.
    const unnamed = { total_tokens: 900, cost_usd: '0.42' } as unknown as RunItem['request_usage']
    const other = renderSummary(finished({ request_usage: unnamed }))
    expect(other).toContain('| **Usage** | total tokens: 900, cost usd: 0.42 |')
  })
})
