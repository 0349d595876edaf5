/**
 * Error pages as text. A proxy's or CDN's error page is mostly markup, scripts and styles; cut to
 * the model's length limit as it is, it would say nothing (a Cloudflare 522 page spends its first
 * 1,000 characters on a doctype and a script). What a person would read is kept: the title and
 * the page's main message.
 */

/** Does this body look like an HTML page rather than a plain message? */
export function looksLikeHtml(text: string): boolean {
  return /^\s*(?:<!--[\s\S]*?-->\s*)*<(?:!doctype html|html|head|body|title|meta|div|h1|p|center)\b/i.test(text);
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", ndash: "–", mdash: "—", hellip: "…", copy: "©" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" || name[1] === "X" ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

function squash(text: string): string {
  return decodeEntities(text.replace(/<[^>]*>/g, " ")).replace(/\s+/g, " ").trim();
}

/** The text a person reads on an HTML page: its title, and its body without markup, scripts or styles. */
export function htmlText(html: string): { title: string; text: string } {
  const title = squash(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? "");
  const body = html
    .replace(/<!--[\s\S]*?-->/g, " ")
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, " ")
    // Unclosed scripts and styles (a page cut short) hide everything after them.
    .replace(/<(script|style)\b[\s\S]*$/i, " ");
  let text = squash(body);
  // Many pages repeat the title as their heading.
  if (title && text.startsWith(title)) text = text.slice(title.length).trim();
  return { title, text };
}

/**
 * An error page reduced to one line: "title: main text", at most `max` characters, cut at a word.
 * Text that is not HTML is returned as it is.
 */
export function pageSummary(body: string, max = 300): string {
  if (!looksLikeHtml(body)) return body.trim();
  const { title, text } = htmlText(body);
  const joined = title && text ? `${title}: ${text}` : title || text;
  if (joined.length <= max) return joined;
  const cut = joined.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${space > max / 2 ? cut.slice(0, space) : cut}…`;
}
