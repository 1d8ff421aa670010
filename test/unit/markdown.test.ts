import MarkdownIt from 'markdown-it'
import { Lexer, type Token as MarkedToken } from 'marked'
import { describe, expect, it } from 'vitest'
import { agentDetails, agentMarkdown } from '../../src/text/markdown.ts'

/** A CommonMark renderer with raw HTML on, as GitHub has it: the oracle for "no raw HTML". */
const renderer = new MarkdownIt({ html: true, linkify: true })

type Token = ReturnType<MarkdownIt['parse']>[number]

function allTokens(markdown: string): Token[] {
  const flat: Token[] = []
  const visit = (tokens: Token[]) => {
    for (const token of tokens) {
      flat.push(token)
      if (token.children) visit(token.children)
    }
  }
  visit(renderer.parse(markdown, {}))
  return flat
}

/** Raw HTML the renderer would pass through, and autolinks written with angle brackets. */
function rawHtml(markdown: string): string[] {
  return allTokens(markdown)
    .filter(
      (token) =>
        token.type === 'html_block' ||
        token.type === 'html_inline' ||
        (token.type === 'link_open' && token.markup === 'autolink'),
    )
    .map((token) => token.content || token.markup)
}

/** The same check with marked (the GFM renderer our screenshots use): a second opinion. */
function rawHtmlPerMarked(markdown: string): string[] {
  const found: string[] = []
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit)
    if (typeof value !== 'object' || value === null) return
    const token = value as MarkedToken & Record<string, unknown>
    if (token.type === 'html') found.push(token.raw)
    for (const key of ['tokens', 'items', 'header', 'rows', 'cells']) visit(token[key])
  }
  visit(Lexer.lex(markdown, { gfm: true }))
  return found
}

const MARKER = /<!--\s*cloud-agent-run/i
const MENTION = /(^|[^A-Za-z0-9_])@[A-Za-z0-9]/

function expectSafe(output: string): void {
  expect(rawHtml(output)).toEqual([])
  expect(rawHtmlPerMarked(output)).toEqual([])
  expect(output).not.toMatch(MARKER)
  // Mentions may remain only inside code, where GitHub does not notify.
  const textOutsideCode = allTokens(output)
    .filter((token) => token.type === 'text')
    .map((token) => token.content)
    .join('\n')
  expect(textOutsideCode).not.toMatch(MENTION)
}

/** Wrapped as the summary and the comment do: what follows the text must stay outside it. */
function expectContained(text: string): void {
  const page = `${agentDetails('Answer', text)}\n\nAFTER-THE-ANSWER\n`
  const tokens = renderer.parse(page, {})
  const html = tokens.filter((token) => token.type === 'html_block').map((token) => token.content)
  expect(html[0]).toMatch(/^<details><summary>Answer<\/summary>/)
  expect(html.at(-1)?.trim()).toBe('</details>')
  expect(html).toHaveLength(2)
  const after = tokens.findIndex(
    (token) => token.type === 'inline' && token.content === 'AFTER-THE-ANSWER',
  )
  expect(after).toBeGreaterThan(-1)
  expect(tokens[after - 1]?.type).toBe('paragraph_open')
  expect(tokens[after - 1]?.level).toBe(0)
}

const HOSTILE: Record<string, string> = {
  'script tag': '<script>alert(1)</script>',
  'img onerror': 'Done. <img src=x onerror=alert(1)>',
  'html block': '<div>\n\n**bold**\n\n</div>',
  'details breakout': 'fine</details>\n\n<details open><summary>forged</summary>',
  'closing details alone': '</details>',
  'comment marker': '<!-- cloud-agent-run: {"run_id":"evil","step":"x"} -->',
  'marker in a fence': '```\n<!-- cloud-agent-run: {"run_id":"evil","step":"x"} -->\n```',
  'marker in a code span': 'see `<!-- cloud-agent-run: {"run_id":"evil"} -->` here',
  'marker in an indented block': '    <!-- cloud-agent-run: {"run_id":"evil"} -->',
  'html comment hides text': 'visible <!-- hidden from the reader --> text',
  'unclosed fence': 'Here is code:\n```js\nconst a = 1',
  'unclosed tilde fence': '~~~~\nno end',
  'fence closed by shorter run': '````\n```\n<b>inside</b>',
  mentions: '@octocat and @github/security-team, cc:@admin (@x)',
  'mention after escape': '\\@octocat',
  'mention in link text': '[@octocat](https://example.com)',
  'escaped backtick before span': '\\`<img src=x onerror=alert(1)>`',
  'span across lines': 'a ` b\nc ` <img src=x> `',
  'pipe in a span in a table': '| a | b |\n|---|---|\n| `x|<img src=x onerror=alert(1)>` | y |',
  'list-item fence closer': '- ```\n  <b>in</b>\n  ```\n<img src=x>\n```\n<b>after</b>',
  'indented fence': '  ```\n<img src=x>\n  ```\n<img src=y>',
  'blockquote fence': '> ```\n> <b>x</b>\n<img src=x>',
  autolink: '<https://example.com> and <mailto:a@b.c>',
  'cdata and declarations': '<![CDATA[x]]> <!DOCTYPE html> <?php echo 1; ?>',
  'closing tag': '</div></table></details>',
  'entity-encoded tag': '&lt;img src=x&gt; &#60;b&#62;',
  'tag split by backslash': '\\<img src=x>',
  'control characters': 'a\u0000b\u001b[31mred\u0007 \u202eevil',
  'backtick in fence info': '``` a`b\n<img src=x>\n```',
  'many backticks': '`'.repeat(5000) + '<b>x</b>',
}

describe('agentMarkdown', () => {
  for (const [name, text] of Object.entries(HOSTILE)) {
    it(`is inert and contained: ${name}`, () => {
      expectSafe(agentMarkdown(text))
      expectContained(text)
    })
  }

  it('keeps ordinary Markdown as Markdown', () => {
    const text = [
      '## Review',
      '',
      'The change is **fine**, with one _nit_:',
      '',
      '- `parse()` returns `Array<string>`',
      '- see [the docs](https://example.com/docs)',
      '',
      '| file | verdict |',
      '|---|---|',
      '| a.ts | ok |',
      '',
      '```ts',
      'const xs: Array<string> = []',
      'if (a < b && b > c) {}',
      '```',
    ].join('\n')
    expect(agentMarkdown(text)).toBe(text)
  })

  it('shows code exactly, angle brackets and all', () => {
    const html = renderer.render(agentMarkdown('Use `Map<K, V>`:\n```\n<div>hi</div>\n```'))
    expect(html).toContain('<code>Map&lt;K, V&gt;</code>')
    expect(html).toContain('&lt;div&gt;hi&lt;/div&gt;')
  })

  it('shows escaped text as typed', () => {
    const html = renderer.render(agentMarkdown('if a <b then <!-- x'))
    expect(html).toContain('if a &lt;b then &lt;!-- x')
  })

  it('breaks mentions with an invisible joiner, not by changing what is read', () => {
    const output = agentMarkdown('thanks @octocat')
    expect(output).toBe('thanks @\u200doctocat')
    expect(agentMarkdown('mail me: someone@example.com')).toBe('mail me: someone@example.com')
  })

  it('leaves mentions in code alone, where they do not notify', () => {
    expect(agentMarkdown('run `npm i @types/node`')).toBe('run `npm i @types/node`')
  })

  it('keeps the text of a fence it does not track (inside a list item)', () => {
    const html = renderer.render(agentMarkdown('1. Run:\n   ```sh\n   npm ci\n   ```'))
    expect(html).toContain('```sh')
    expect(html).toContain('npm ci')
  })

  it('closes a fence the agent left open', () => {
    expect(agentMarkdown('```\ncode')).toBe('```\ncode\n```')
  })

  it('turns anything that is not a string into empty text', () => {
    for (const value of [undefined, null, 42, {}, ['a'], true]) {
      expect(agentMarkdown(value)).toBe('')
    }
  })

  it('stays fast on long, adversarial input', () => {
    const text = Array.from({ length: 20_000 }, (_, i) => '`'.repeat((i % 7) + 1)).join(' x ')
    const output = agentMarkdown(text)
    expectSafe(output)
  })
})

describe('agentDetails', () => {
  it('escapes its own summary line', () => {
    const page = agentDetails('<img src=x> @octocat', 'body')
    expect(page.split('\n')[0]).toBe('<details><summary>&lt;img src=x> @\u200doctocat</summary>')
  })
})
