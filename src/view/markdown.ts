/**
 * Markdown → HTML for message text, with markdown-it: raw HTML in the source is not passed through (`html: false`
 * escapes it as text), links keep only http(s), mailto and in-page targets, and images load only from inline
 * `data:image/…` (an image on the network becomes a plain link: a page must not fetch anything by itself).
 */
import markdownIt, { type MarkdownIt } from "markdown-it";
import { escapeHtml } from "./escape.js";

const SAFE_LINK = /^(https?:|mailto:|#)/i;
const SAFE_IMAGE = /^data:image\/(png|jpeg|gif|webp|avif|bmp);base64,[a-z0-9+/=\s]*$/i;

let md: MarkdownIt | undefined;

function instance(): MarkdownIt {
  if (md) return md;
  const m = markdownIt({ html: false, linkify: false, typographer: false, breaks: false });
  m.validateLink = (url: string) => SAFE_LINK.test(url.trim()) || SAFE_IMAGE.test(url.trim());
  m.renderer.rules.image = (tokens, idx) => {
    const t = tokens[idx]!;
    const src = String(t.attrGet("src") ?? "");
    const alt = t.content;
    if (SAFE_IMAGE.test(src)) return `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}" loading="lazy">`;
    if (/^https?:/i.test(src))
      return `<a href="${escapeHtml(src)}" rel="noopener noreferrer nofollow" target="_blank">[image${alt ? ": " + escapeHtml(alt) : ""}]</a>`;
    return `[image${alt ? ": " + escapeHtml(alt) : ""}]`;
  };
  const link = m.renderer.rules.link_open;
  m.renderer.rules.link_open = (tokens, idx, options, env, self) => {
    const t = tokens[idx]!;
    const href = String(t.attrGet("href") ?? "");
    if (!href.startsWith("#")) {
      t.attrSet("rel", "noopener noreferrer nofollow");
      t.attrSet("target", "_blank");
    }
    return link ? link(tokens, idx, options, env, self) : self.renderToken(tokens, idx, options);
  };
  md = m;
  return m;
}

/** Markdown text → HTML (safe to insert as markup: see the module comment). */
export function renderMarkdown(text: string): string {
  return instance().render(text);
}

/** Text with no Markdown syntax at all renders as plain paragraphs: the page carries it as text, not markup. */
export function isPlainText(text: string): boolean {
  return !/[\\`*_[\]<>#!&|~=+-]|^\s*\d+[.)]\s|^ {4}|\t/m.test(text);
}
