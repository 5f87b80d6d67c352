/**
 * What `ckpt scan` looks for in a conversation's strings, and where: API keys and tokens through secretlint's
 * recommended rule set (a maintained set: AWS, GitHub, OpenAI, Anthropic, Slack, private keys, connection strings,
 * …), with what the preset lacks added here (Google API keys, Stripe secret keys, JWTs, a password in any URL's
 * user-info, AWS access key ids — the preset's rule has them behind an option), and personal data: e-mail addresses,
 * phone numbers, IP addresses, card numbers (Luhn-checked, known issuer prefixes), home-directory paths with a user
 * name. Pure: strings in, ranges out.
 *
 * secretlint is asked once per batch of strings (all of a conversation's, joined with a separator no rule matches
 * across): one `lintSource` call costs ~0.4 ms however short the text, so one call per string would make a scan of a
 * 200k-message store take minutes.
 */
import { userinfoEnd } from "../../base/redact.js";

/** The kinds `--redact=` chooses among (`secrets` is every API key, token, private key and password). */
export const FINDING_KINDS = ["secrets", "email", "phone", "ip", "card", "path"] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

/** One thing found in one string: where it is (UTF-16 offsets into the string) and what it is. */
export interface Detection {
  kind: FindingKind;
  /** what found it: a secretlint rule and message id (`@secretlint/secretlint-rule-github/GITHUB_TOKEN`), or ckpt's own (`ckpt/email`) */
  rule: string;
  start: number;
  end: number;
}

/** The placeholder name of each kind: `<EMAIL_1>`; a home path keeps its folders and loses its user name (`<USER_1>`). */
export const PLACEHOLDER: Record<FindingKind, string> = {
  secrets: "SECRET",
  email: "EMAIL",
  phone: "PHONE",
  ip: "IP",
  card: "CARD",
  path: "USER",
};

// ------------------------------------------------------------------------------------------------ own rules

interface OwnRule {
  kind: FindingKind;
  rule: string;
  re: RegExp;
  /** the range of the finding within the match (default: the whole match), or undefined to drop it */
  pick?: (m: RegExpExecArray) => [number, number] | undefined;
  /** found by this rule, an overlapping finding of another rule is dropped (a URL's password over the whole URL) */
  wins?: boolean;
}

/** A password in a URL's user-info (`scheme://user:password@host`): the password alone (what `redactUri` hides). */
function urlPassword(m: RegExpExecArray): [number, number] | undefined {
  const url = m[0];
  const at = userinfoEnd(url);
  if (at < 0) return undefined;
  const start = url.indexOf("://") + 3;
  const colon = url.indexOf(":", start);
  if (colon < 0 || colon >= at || colon + 1 === at) return undefined;
  return [m.index + colon + 1, m.index + at];
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** Card numbers: a known issuer's prefix and length (Visa, Mastercard, Amex, Discover, Diners, JCB), Luhn-valid. */
function card(m: RegExpExecArray): [number, number] | undefined {
  const digits = m[0].replace(/[ -]/g, "");
  const issuer =
    /^4\d{12}(\d{3}){0,2}$/.test(digits) ||
    /^(5[1-5]\d{14}|2(2[2-9]|[3-6]\d|7[01])\d{12}|27 20\d{12})$/.test(digits) ||
    /^3[47]\d{13}$/.test(digits) ||
    /^6(011|5\d\d)\d{12}$/.test(digits) ||
    /^3(0[0-5]|[689]\d)\d{11}$/.test(digits) ||
    /^35(2[89]|[3-8]\d)\d{12}$/.test(digits);
  return issuer && luhn(digits) ? [m.index, m.index + m[0].length] : undefined;
}

/** Phone numbers: 9 to 15 digits in a phone's grouping (`+1 415-555-0134`, `(415) 555 0134`, `+44 20 7946 0958`). */
function phone(m: RegExpExecArray): [number, number] | undefined {
  const n = m[0].replace(/\D/g, "").length;
  return n >= 9 && n <= 15 ? [m.index, m.index + m[0].length] : undefined;
}

/** IPv4 addresses other than loopback and 0.0.0.0 (not personal: every machine has them). */
function ipv4(m: RegExpExecArray): [number, number] | undefined {
  const parts = m[0].split(".").map(Number);
  if (parts.some((p) => p > 255)) return undefined;
  if (parts[0] === 127 || m[0] === "0.0.0.0" || m[0] === "255.255.255.255") return undefined;
  return [m.index, m.index + m[0].length];
}

/** The user-name segment of a home-directory path (`/home/alice/…`, `/Users/alice/…`, `C:\Users\alice\…`). */
function homeUser(m: RegExpExecArray): [number, number] | undefined {
  const user = m[2]!;
  if (/^(shared|public|default|all users|<[A-Z]+_\d+>)$/i.test(user)) return undefined;
  const start = m.index + m[1]!.length;
  return [start, start + user.length];
}

const OWN: OwnRule[] = [
  { kind: "secrets", rule: "ckpt/google-api-key", re: /(?<![\w-])AIza[0-9A-Za-z_-]{35}(?![\w-])/g },
  {
    kind: "secrets",
    rule: "ckpt/stripe-secret-key",
    re: /(?<![\w])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,247}(?!\w)/g,
  },
  {
    kind: "secrets",
    rule: "ckpt/jwt",
    re: /(?<![\w-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}(?![\w-])/g,
  },
  {
    kind: "secrets",
    rule: "ckpt/url-password",
    re: /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>()`]+/gi,
    pick: urlPassword,
    wins: true,
  },
  {
    kind: "email",
    rule: "ckpt/email",
    re: /(?<![\w.%+-])[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}(?![\w-])/g,
  },
  {
    kind: "phone",
    rule: "ckpt/phone",
    re: /(?<![\w+.-]|\d[ .-])(?:\+\d{1,3}[ .-]?)?(?:\(\d{1,4}\)[ .-]?|\d{2,4}[ .-])\d{2,4}[ .-]\d{3,4}(?![\w-]|[ .]\d)/g,
    pick: phone,
  },
  { kind: "ip", rule: "ckpt/ipv4", re: /(?<![\w.-])(?:\d{1,3}\.){3}\d{1,3}(?![\w-]|\.\d)/g, pick: ipv4 },
  {
    kind: "ip",
    rule: "ckpt/ipv6",
    re: /(?<![\w:])(?:(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|(?:[0-9a-f]{1,4}:){1,6}:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})(?![\w:])/gi,
  },
  { kind: "card", rule: "ckpt/card", re: /(?<![\w-])\d(?:[ -]?\d){12,18}(?![\w-])/g, pick: card },
  {
    kind: "path",
    rule: "ckpt/home-path",
    re: /((?:^|(?<=[\s"'`=(:,[{]))(?:\/home\/|\/Users\/|[A-Za-z]:\\{1,2}Users\\{1,2}))([A-Za-z0-9._-]+|[A-Za-z0-9._ -]+(?=\\))/g,
    pick: homeUser,
  },
];

/** Findings of ckpt's own rules in one string. */
function ownDetections(s: string): Array<Detection & { wins?: boolean }> {
  const out: Array<Detection & { wins?: boolean }> = [];
  for (const r of OWN) {
    r.re.lastIndex = 0;
    for (let m = r.re.exec(s); m; m = r.re.exec(s)) {
      const range = r.pick ? r.pick(m) : [m.index, m.index + m[0].length];
      if (range) out.push({ kind: r.kind, rule: r.rule, start: range[0], end: range[1], wins: r.wins });
      if (m[0].length === 0) r.re.lastIndex++;
    }
  }
  return out;
}

// ------------------------------------------------------------------------------------------------ secretlint

/** Joins a batch's strings for one secretlint call: no rule's pattern spans a NUL and two newlines. */
const SEPARATOR = "\n\u0000\n";

type Lint = (texts: string[]) => Promise<Detection[][]>;
let lint: Promise<Lint> | undefined;

/** secretlint's recommended preset, loaded once (only scan and --redact load it). */
function secretlint(): Promise<Lint> {
  lint ??= (async () => {
    const [{ lintSource }, { creator }, { secretLintProfiler }] = await Promise.all([
      import("@secretlint/core"),
      import("@secretlint/secretlint-rule-preset-recommend"),
      import("@secretlint/profiler"),
    ]);
    // @secretlint/core marks every lint in the process-wide performance timeline and its profiler keeps every entry
    // (each new mark measured against all of them): lints slow down as they add up — an export --redact of 10,000
    // conversations took over 10 minutes. ckpt never reads the profile: no marks.
    secretLintProfiler.mark = () => undefined;
    const config = {
      rules: [
        {
          id: "@secretlint/secretlint-rule-preset-recommend",
          rule: creator,
          // AWS access key ids are behind an option of the preset's AWS rule
          rules: [{ id: "@secretlint/secretlint-rule-aws", options: { enableIDScanRule: true } }],
        },
      ],
    };
    return async (texts: string[]) => {
      const out: Detection[][] = texts.map(() => []);
      const content = texts.join(SEPARATOR);
      if (content.length === 0) return out;
      const starts: number[] = [];
      let at = 0;
      for (const t of texts) {
        starts.push(at);
        at += t.length + SEPARATOR.length;
      }
      const r = await lintSource({
        source: { content, filePath: "/conversation.txt", ext: ".txt", contentType: "text" },
        options: { config: config as never, noPhysicFilePath: true },
      });
      for (const m of r.messages) {
        let [s, e] = m.range;
        // a rule that reports a captured value with the whole match's start (the preset's AWS secret key rule):
        // the value itself, found from there
        const value = Object.values((m as { data?: Record<string, unknown> }).data ?? {}).find(
          (v): v is string => typeof v === "string" && v.length >= 8 && content.slice(s, e) !== v,
        );
        if (value && !content.slice(s, e).includes(value)) {
          const i = content.indexOf(value, s);
          if (i >= 0 && i - s < 200) [s, e] = [i, i + value.length];
        }
        // the string it falls in (a finding across a separator is no finding)
        let lo = 0;
        let hi = starts.length - 1;
        while (lo < hi) {
          const mid = (lo + hi + 1) >> 1;
          if (starts[mid]! <= s) lo = mid;
          else hi = mid - 1;
        }
        const base = starts[lo]!;
        if (e - base > texts[lo]!.length) continue;
        out[lo]!.push({ kind: "secrets", rule: `${m.ruleId}/${m.messageId}`, start: s - base, end: e - base });
      }
      return out;
    };
  })();
  return lint;
}

/**
 * Every finding in each of `texts` (one array per text, sorted by start, without overlaps: where two rules find the
 * same place, the one that `wins` — a URL's password — or else the earlier, longer one is kept). `kinds`: only these.
 */
export async function detectAll(
  texts: string[],
  kinds: ReadonlySet<FindingKind> = new Set(FINDING_KINDS),
): Promise<Detection[][]> {
  const fromLint = kinds.has("secrets") ? await (await secretlint())(texts) : texts.map(() => []);
  return texts.map((t, i) => {
    // overlaps are settled among every kind before the kinds asked for are kept: a URL's password is not an e-mail
    // address (`admin:pw@db.example.com`) even when only e-mail addresses are asked for
    const all = [...fromLint[i]!, ...ownDetections(t)].filter(
      (d) => d.end > d.start && !redacted(t.slice(d.start, d.end)),
    );
    return resolveOverlaps(all).filter((d) => kinds.has(d.kind));
  });
}

/**
 * What `--redact` wrote is no finding: a placeholder (`<SECRET_1>`), or a URL whose password is one (secretlint's
 * connection-string and basic-auth rules match `postgres://admin:<SECRET_1>@db…` as a URL with a password).
 */
const PLACEHOLDER_TEXT = /^<[A-Z]+_\d+>$|:<[A-Z]+_\d+>@/;
const redacted = (s: string) => PLACEHOLDER_TEXT.test(s);

function resolveOverlaps(all: Array<Detection & { wins?: boolean }>): Detection[] {
  all.sort((a, b) => Number(Boolean(b.wins)) - Number(Boolean(a.wins)) || a.start - b.start || b.end - a.end);
  const kept: Detection[] = [];
  for (const d of all) {
    if (kept.some((k) => d.start < k.end && k.start < d.end)) continue;
    kept.push({ kind: d.kind, rule: d.rule, start: d.start, end: d.end });
  }
  return kept.sort((a, b) => a.start - b.start);
}

/** A found value shown without giving it away: its first and last characters around asterisks. */
export function mask(value: string): string {
  const oneLine = value.replace(/\s+/g, " ");
  if (oneLine.length <= 6) return "*".repeat(oneLine.length);
  const keep = oneLine.length >= 16 ? 4 : 2;
  return `${oneLine.slice(0, keep)}${"*".repeat(Math.min(12, oneLine.length - keep - 2))}${oneLine.slice(-2)}`;
}
