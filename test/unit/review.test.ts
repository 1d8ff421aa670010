import { describe, expect, it } from 'vitest'
import type { ReviewDocument } from '../../src/agent/review-document.ts'
import { annotationsOf, checkReport } from '../../src/github/check-run.ts'
import {
  MAX_REVIEW_PARTS,
  renderContinuation,
  renderReviewBody,
  reviewKeyOf,
  reviewMarkOf,
  reviewMarker,
} from '../../src/github/review-body.ts'
import { anchorComments, diffLines } from '../../src/github/review-diff.ts'
import type { StepOutcome } from '../../src/model/step.ts'
import { finalStatus } from '../../src/github/status.ts'
import { describeEnding, endingOf } from '../../src/model/ending.ts'

const PATCH = [
  '@@ -10,3 +10,4 @@ function a() {',
  ' keep',
  '-old',
  '+new one',
  '+new two',
  ' tail',
  '\\ No newline at end of file',
  '@@ -50 +51 @@',
  '-x',
  '+y',
].join('\n')

describe('diffLines', () => {
  it('numbers context and added lines on the right, context and removed ones on the left', () => {
    const lines = diffLines(PATCH)
    expect([...lines.RIGHT]).toEqual([
      [10, 0],
      [11, 0],
      [12, 0],
      [13, 0],
      [51, 1],
    ])
    expect([...lines.LEFT]).toEqual([
      [10, 0],
      [11, 0],
      [12, 0],
      [50, 1],
    ])
    expect(diffLines(undefined).RIGHT.size).toBe(0)
  })
})

const files = new Map([['src/a.ts', diffLines(PATCH)]])
const comment = (line: number, extra: object = {}) => ({
  path: 'src/a.ts',
  line,
  body: `on ${line}`,
  ...extra,
})

describe('anchorComments', () => {
  it('keeps comments on the diff inline, and moves the rest into the body with the reason', () => {
    const anchored = anchorComments(
      [
        comment(11),
        comment(12, { start_line: 10 }),
        comment(51, { start_line: 12 }),
        comment(11, { side: 'LEFT' }),
        comment(99),
        { path: './src\\a.ts', line: 13, body: 'normalized' },
        { path: 'other.ts', line: 1, body: 'elsewhere' },
      ],
      files,
    )
    expect(anchored.inline).toEqual([
      { path: 'src/a.ts', line: 11, side: 'RIGHT', body: 'on 11' },
      {
        path: 'src/a.ts',
        line: 12,
        side: 'RIGHT',
        start_line: 10,
        start_side: 'RIGHT',
        body: 'on 12',
      },
      // A range across hunks stays on its last line.
      { path: 'src/a.ts', line: 51, side: 'RIGHT', body: 'on 51' },
      { path: 'src/a.ts', line: 11, side: 'LEFT', body: 'on 11' },
      { path: 'src/a.ts', line: 13, side: 'RIGHT', body: 'normalized' },
    ])
    expect(anchored.inBody.map(({ comment, reason }) => [comment.line, reason])).toEqual([
      [99, 'the line is not in the diff'],
      [1, 'the file is not in the diff'],
    ])
  })

  it('puts at most 50 inline; the rest go into the body, never dropped', () => {
    const many = Array.from({ length: 60 }, () => comment(11))
    const anchored = anchorComments(many, files)
    expect(anchored.inline).toHaveLength(50)
    expect(anchored.inBody).toHaveLength(10)
    expect(anchored.inBody[0]?.reason).toBe('past the first 50 inline comments')
  })
})

const review: ReviewDocument = {
  summary: 'Fine <b>bold</b> @someone',
  verdict: 'approve',
  comments: [],
}

describe('renderReviewBody', () => {
  it('starts with the marker of its key, and says approve is posted as a comment', () => {
    const { body, rest } = renderReviewBody(
      review,
      [
        {
          comment: { path: 'a`b|c.ts', line: 3, body: '**x**' },
          reason: 'the line is not in the diff',
        },
      ],
      {
        key: 'agent-review',
        runId: 'run_1',
        replaces: ['https://github.com/o/r/pull/1#pullrequestreview-1'],
      },
    )
    expect(rest).toEqual([])
    expect(reviewKeyOf(body)).toBe('agent-review')
    expect(body.split('\n')[0]).toBe(reviewMarker('agent-review', 'run_1'))
    expect(body).toContain('_Posted as a comment: the action never approves a pull request._')
    expect(body).toContain('Fine &lt;b>bold&lt;/b> @\u200dsomeone')
    expect(body).toContain('<code>a&#96;b&#124;c.ts:3</code> (the line is not in the diff)')
    expect(body).toContain(
      'replaces [the earlier review](https://github.com/o/r/pull/1#pullrequestreview-1) of this commit',
    )
  })

  it('stays within what GitHub takes, and hands on what does not fit, to go on in the next reviews', () => {
    const long = { ...review, summary: 'word '.repeat(30_000) }
    const inBody = Array.from({ length: 40 }, (_, i) => ({
      comment: { path: 'a.ts', line: i + 1, body: 'x'.repeat(5_000) },
      reason: 'the line is not in the diff',
    }))
    const context = { key: 'k', runId: 'r', replaces: [] }
    const first = renderReviewBody(long, inBody, context)
    expect(first.body.length).toBeLessThanOrEqual(65_536)
    expect(first.rest.length).toBeGreaterThan(0)
    expect(first.body).toContain(
      `_${first.rest.length} more comments outside the diff are in the next review._`,
    )
    expect(first.body).toMatch(/<sub>run <code>r<\/code><\/sub>$/)

    const parts = [first.body]
    let rest = first.rest
    for (let part = 2; rest.length > 0; part++) {
      const next = renderContinuation(rest, {
        key: 'k',
        runId: 'r',
        part,
        firstUrl: 'https://github.com/o/r/pull/1#pullrequestreview-9',
      })
      expect(next.body.length).toBeLessThanOrEqual(65_536)
      expect(reviewMarkOf(next.body)).toEqual({ key: 'k', runId: 'r', part })
      expect(next.body).toContain(
        'continued from [the review](https://github.com/o/r/pull/1#pullrequestreview-9)',
      )
      parts.push(next.body)
      rest = next.rest
    }
    for (let line = 1; line <= 40; line++) {
      const where = `<code>a.ts:${line}</code>`
      expect(
        parts.filter((body) => body.includes(where)),
        where,
      ).toHaveLength(1)
    }
  })

  it('a continuation takes its first comment even when it alone is too long, and the last part names the rest', () => {
    const huge = Array.from({ length: 3 }, (_, i) => ({
      // Escaping makes each far longer than a body holds: `<` is four characters once escaped.
      comment: { path: 'a.ts', line: i + 1, body: '<'.repeat(20_000) },
      reason: 'the line is not in the diff',
    }))
    const next = renderContinuation(huge, { key: 'k', runId: 'r', part: 2, firstUrl: undefined })
    expect(next.body.length).toBeLessThanOrEqual(65_536)
    expect(next.body).toContain('<code>a.ts:1</code>')
    expect(next.body).toContain('_(cut here: GitHub keeps at most 65,536 characters.)_')
    expect(next.rest).toHaveLength(2)

    const last = renderContinuation(huge, {
      key: 'k',
      runId: 'r',
      part: MAX_REVIEW_PARTS,
      firstUrl: undefined,
    })
    expect(last.rest).toEqual([])
    expect(last.body).toContain(
      "_2 more comments outside the diff did not fit in 10 reviews: every comment is in the step's `structured_output` output._",
    )
  })

  it('reads no key from a marker that is not JSON, and a key "--" cannot end the marker', () => {
    expect(reviewKeyOf('<!-- cloud-agent-review: {oops} -->')).toBeUndefined()
    const marker = reviewMarker('a-->b', 'r')
    expect(marker.indexOf('-->')).toBe(marker.length - 3)
    expect(reviewKeyOf(marker)).toBe('a-->b')
  })
})

const finished = (state: string, extra: object = {}): StepOutcome => ({
  kind: 'finished',
  run: { run_id: 'run_1', state },
  elapsedMs: 1,
  ...extra,
})

describe('checkReport', () => {
  it('tells the verdict on the work from a broken run', () => {
    const cases: Array<[StepOutcome, ReviewDocument['verdict'] | undefined, string, string]> = [
      [finished('SUCCEEDED'), 'request_changes', 'failure', 'Changes requested'],
      [finished('SUCCEEDED'), 'approve', 'success', 'Approved by the agent'],
      [finished('SUCCEEDED'), 'comment', 'success', 'Reviewed, with comments'],
      [finished('SUCCEEDED'), undefined, 'success', 'Succeeded'],
      [finished('FAILED'), undefined, 'failure', 'The run broke: the agent could not finish'],
      [finished('ERROR'), undefined, 'failure', "The run broke: a failure on the service's side"],
      [
        finished('SUCCEEDED', {
          invalidOutput: { errors: ['/a x'], corrections: 2, input: 'pull_request_review' },
        }),
        undefined,
        'failure',
        'The run broke: its result did not validate',
      ],
      [
        finished('CANCELLED', { supersededBy: 'run_2' }),
        undefined,
        'neutral',
        'Superseded by a newer run',
      ],
      [{ kind: 'interrupted', run: undefined }, undefined, 'cancelled', 'The run was cancelled'],
    ]
    for (const [given, verdict, conclusion, title] of cases) {
      const doc = verdict ? { ...review, verdict } : undefined
      const outcome =
        verdict && given.kind === 'finished' ? { ...given, reviewVerdict: verdict } : given
      expect(checkReport(outcome, { review: doc })).toMatchObject({ conclusion, title })
    }
  })

  it('one verdict everywhere: the status of the same name agrees with the check, and the headline leads with it', () => {
    for (const [verdict, state, headline] of [
      ['request_changes', 'failure', 'Changes requested: Review of PR #7'],
      ['approve', 'success', 'Approved: Review of PR #7'],
      ['comment', 'success', 'Commented: Review of PR #7'],
    ] as const) {
      const outcome: StepOutcome = {
        kind: 'finished',
        run: { run_id: 'run_1', state: 'SUCCEEDED', title: 'Review of PR #7' },
        elapsedMs: 1,
        reviewVerdict: verdict,
      }
      const check = checkReport(outcome, { review: { ...review, verdict } })
      const status = finalStatus(outcome)
      expect(status.state).toBe(check.conclusion === 'failure' ? 'failure' : 'success')
      expect(status.state).toBe(state)
      const words = describeEnding(endingOf(outcome))
      expect(words.headline).toBe(headline)
      // The run itself succeeded: the step passes, and the outcome output says so.
      expect(words.outcome).toBe('succeeded')
      expect(words.passes).toBe(true)
      expect(check.summary).toMatch(/^The run succeeded; the agent(?:'|&#39;)s review /)
      expect(check.summary).not.toContain('Outcome:')
    }
  })

  it("shows the agent's text safely, within GitHub's 65,535 characters", () => {
    const report = checkReport(finished('SUCCEEDED'), {
      answer: '<script>x</script> @all\n'.repeat(10_000),
    })
    expect(report.summary.length).toBeLessThanOrEqual(65_535)
    expect(report.summary).not.toMatch(/<script|@all/)
  })
})

describe('annotationsOf', () => {
  it('annotates the new side only, as notices, or warnings when changes are requested', () => {
    expect(
      annotationsOf(
        [
          { path: './a.ts', line: 4, start_line: 2, body: 'range' },
          { path: 'a.ts', line: 3, side: 'LEFT', body: 'removed line' },
        ],
        'request_changes',
      ),
    ).toEqual([
      { path: 'a.ts', start_line: 2, end_line: 4, annotation_level: 'warning', message: 'range' },
    ])
  })
})
