/**
 * A model's markdown, drawn as Preact elements: `marked` (loaded lazily, ~12 kB) only splits the text
 * into tokens, and each token becomes an element from a fixed list. Nothing is ever parsed as HTML:
 * raw HTML in a reply (`<img onerror>`, `<script>`) is shown as the text it is, links keep only
 * http(s) and mailto addresses, and images are links the person may open, never loaded by the page
 * (a remote image in a model's reply can carry what the model read to whoever serves it).
 * Until the renderer has loaded, the text shows as it is written.
 */
import { signal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import type { Token, Tokens } from 'marked';

type Lex = (src: string) => Token[];

let lex: Lex | null = null;
/** Becomes true once `marked` has loaded (pages holding rendered text re-render then). */
export const markdownReady = signal(false);

/** Starts loading the renderer (the chat page calls it when it opens). */
export function loadMarkdown(): void {
  if (lex || loading) return;
  loading = import('marked').then(
    ({ Lexer }) => {
      lex = (src) => Lexer.lex(src, { gfm: true, breaks: true });
      markdownReady.value = true;
    },
    () => void (loading = null), // offline mid-load: the next call tries again; the text stays plain meanwhile
  );
}
let loading: Promise<void> | null = null;

/** Parsed messages by their text: a row re-rendering (scroll, a streamed word elsewhere) does not parse again. */
const cache = new Map<string, Token[]>();
const CACHE_ENTRIES = 400;

function tokensOf(text: string): Token[] | null {
  if (!lex) return null;
  let tokens = cache.get(text);
  if (!tokens) {
    tokens = lex(text);
    if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    cache.set(text, tokens);
  }
  return tokens;
}

export function Markdown({ text, class: cls }: { text: string; class?: string }) {
  void markdownReady.value;
  const tokens = tokensOf(text);
  return <div class={`md ${cls ?? ''}`}>{tokens ? blocks(tokens) : <p class="md-plain">{text}</p>}</div>;
}

/** Addresses a link may open: the web and mail. Anything else (javascript:, data:, file:, relative) is shown as text. */
export function safeHref(href: string): string | null {
  try {
    const url = new URL(href);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : null;
  } catch {
    return null;
  }
}

function blocks(tokens: Token[]): ComponentChildren[] {
  return tokens.map((t, i) => block(t as Tokens.Generic, i));
}

function block(t: Tokens.Generic, key: number): ComponentChildren {
  switch (t.type) {
    case 'paragraph':
      return <p key={key}>{inline(t.tokens ?? [])}</p>;
    case 'heading': {
      const H = `h${Math.min(6, Math.max(3, t.depth + 2))}` as 'h3';
      return <H key={key}>{inline(t.tokens ?? [])}</H>;
    }
    case 'code':
      return (
        <pre key={key} class="md-code">
          <code data-lang={t.lang || undefined}>{t.text}</code>
        </pre>
      );
    case 'blockquote':
      return <blockquote key={key}>{blocks(t.tokens ?? [])}</blockquote>;
    case 'list': {
      const items = (t as Tokens.List).items.map((it, k) => (
        <li key={k}>
          {it.task && <input type="checkbox" checked={it.checked} disabled />}
          {it.loose ? blocks(it.tokens) : looseless(it.tokens)}
        </li>
      ));
      return (t as Tokens.List).ordered ? (
        <ol key={key} start={(t as Tokens.List).start === '' ? undefined : Number((t as Tokens.List).start)}>
          {items}
        </ol>
      ) : (
        <ul key={key}>{items}</ul>
      );
    }
    case 'table': {
      const tb = t as Tokens.Table;
      return (
        <div key={key} class="md-table">
          <table>
            <thead>
              <tr>
                {tb.header.map((c, k) => (
                  <th key={k} style={c.align ? { textAlign: c.align } : undefined}>
                    {inline(c.tokens)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {tb.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((c, k) => (
                    <td key={k} style={c.align ? { textAlign: c.align } : undefined}>
                      {inline(c.tokens)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case 'hr':
      return <hr key={key} />;
    case 'space':
    case 'def':
      return null;
    case 'html':
      // Raw HTML from a model is shown as written, never parsed.
      return (
        <p key={key} class="md-raw">
          {t.text}
        </p>
      );
    case 'text':
      return <p key={key}>{t.tokens ? inline(t.tokens) : decode(t.text)}</p>;
    default:
      return <p key={key}>{t.raw}</p>;
  }
}

/** A tight list item's tokens: its text runs inline, other blocks (a nested list) as blocks. */
function looseless(tokens: Token[]): ComponentChildren[] {
  return tokens.map((t, i) => (t.type === 'text' ? <span key={i}>{(t as Tokens.Text).tokens ? inline((t as Tokens.Text).tokens!) : decode(t.text)}</span> : block(t as Tokens.Generic, i)));
}

function inline(tokens: Token[]): ComponentChildren[] {
  return tokens.map((tk, key) => {
    const t = tk as Tokens.Generic;
    switch (t.type) {
      case 'text':
        return t.tokens ? <span key={key}>{inline(t.tokens)}</span> : decode(t.text);
      case 'escape':
        return t.text;
      case 'strong':
        return <strong key={key}>{inline(t.tokens ?? [])}</strong>;
      case 'em':
        return <em key={key}>{inline(t.tokens ?? [])}</em>;
      case 'del':
        return <del key={key}>{inline(t.tokens ?? [])}</del>;
      case 'codespan':
        return <code key={key}>{t.text}</code>;
      case 'br':
        return <br key={key} />;
      case 'link': {
        const href = safeHref(t.href);
        const label = t.tokens?.length ? inline(t.tokens) : t.text;
        if (!href) return <span key={key} class="md-unsafe" title={`not opened: ${t.href}`}>{label}</span>;
        return (
          <a key={key} href={href} target="_blank" rel="noopener noreferrer nofollow" title={t.title ?? href}>
            {label}
          </a>
        );
      }
      case 'image': {
        const href = safeHref(t.href);
        const label = `image: ${t.text || t.href}`;
        return href ? (
          <a key={key} class="md-image" href={href} target="_blank" rel="noopener noreferrer nofollow" title={href}>
            {label}
          </a>
        ) : (
          <span key={key} class="md-unsafe">
            {label}
          </span>
        );
      }
      case 'html':
        return <span key={key} class="md-raw">{t.text}</span>;
      default:
        return t.raw;
    }
  });
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Character references in markdown text (`&amp;`, `&#39;`), decoded without an HTML parser. */
function decode(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, ref: string) => {
    if (ref[0] !== '#') return NAMED[ref.toLowerCase()] ?? whole;
    const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}
