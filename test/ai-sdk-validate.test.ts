/**
 * #30 item 2: `ckpt validate` of an AI SDK chat answers what that major's own validator answers — ai@5, ai@6 and
 * ai@7's `safeValidateUIMessages`, and for ai@4 (which has none) whether its `convertToCoreMessages` throws or makes
 * CoreMessages its `coreMessageSchema` rejects (what streamText and generateText check). The
 * chats are written by each major's real functions with its mock models (test/peers/scripts/ai-sdk.mjs); the
 * broken ones are named variants (old shape to a new major, a tool part with output-available and no output, …)
 * plus every key of every object in the written chats deleted or replaced by a wrong value. One peer process
 * writes the chats and one answers for every variant of every major.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { validateDocument } from "../src/core/document.js";
import { runPeer } from "./helpers/peers.js";

type Chat = unknown[];
type Written = Record<string, Record<string, Chat>>;
interface Verdict {
  ok: boolean;
  error?: string;
  path?: unknown[];
}
const MAJORS = ["4", "5", "6", "7"] as const;
const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

/** Named broken (and a few odd but accepted) variants of a major's chats. */
function variants(major: string, chats: Record<string, Chat>, written: Written): Array<[string, unknown]> {
  const tools = chats.tools as Array<Record<string, unknown>>;
  const out: Array<[string, unknown]> = [];
  const edit = (what: string, f: (c: Array<Record<string, unknown>>) => void, base: Chat = tools) => {
    const c = clone(base) as Array<Record<string, unknown>>;
    f(c);
    out.push([what, c]);
  };
  const parts = (c: Array<Record<string, unknown>>) => c[1]!.parts as Array<Record<string, unknown>>;
  if (major === "4") {
    edit("a tool invocation without a result", (c) => {
      const t = (parts(c)[1]!.toolInvocation as Record<string, unknown>)!;
      delete t.result;
      t.state = "call";
    });
    edit("an invocation without a result (no parts)", (c) => {
      delete c[1]!.parts;
      delete (c[1]!.toolInvocations as Array<Record<string, unknown>>)[1]!.result;
    });
    edit("an unknown role", (c) => {
      c[0]!.role = "tool";
    });
    edit("a reasoning part without details", (c) => {
      parts(c).splice(1, 0, { type: "reasoning", reasoning: "hm" });
    });
    edit("a tool-invocation part without its invocation", (c) => {
      delete parts(c)[1]!.toolInvocation;
    });
    edit("a message that is null", (c) => {
      (c as unknown[])[0] = null;
    });
    edit("assistant parts that are an object", (c) => {
      c[1]!.parts = {};
    });
    edit("user parts that are a string", (c) => {
      c[0]!.parts = "Weather?";
    });
    edit("toolInvocations that are an object (no parts)", (c) => {
      delete c[1]!.parts;
      c[1]!.toolInvocations = { a: 1 };
    });
    edit(
      "an attachment that is no URL",
      (c) => {
        (c[0]!.experimental_attachments as Array<Record<string, unknown>>)[0]!.url = "not a url";
      },
      chats.file,
    );
    edit(
      "an attachment of another protocol",
      (c) => {
        (c[0]!.experimental_attachments as Array<Record<string, unknown>>)[0]!.url = "ftp://example.com/a.png";
      },
      chats.file,
    );
    edit(
      "a non-image http attachment without a contentType",
      (c) => {
        c[0]!.experimental_attachments = [{ name: "a.pdf", url: "https://example.com/a.pdf" }];
      },
      chats.file,
    );
    // accepted by convertToCoreMessages although the Message type says otherwise
    edit("a message without an id (accepted)", (c) => {
      delete c[0]!.id;
    });
    out.push(["a v5 chat given to v4 (accepted: v4 skips unknown parts)", written["5"]!.tools]);
    // #37: v5-shaped chats that convertToCoreMessages converts and ai@4's CoreMessage schema then rejects
    const v5 = written["5"]!;
    const v5parts = (c: Array<Record<string, unknown>>, i: number) => c[i]!.parts as Array<Record<string, unknown>>;
    edit("a v5 user text part whose text is a number", (c) => void (v5parts(c, 0)[0]!.text = 42), v5.text);
    edit("a v5 user text part without text", (c) => void delete v5parts(c, 0)[0]!.text, v5.text);
    edit("a v5 assistant text part whose text is a number", (c) => void (v5parts(c, 1).at(-1)!.text = 7), v5.text);
    edit("a v5 assistant text part without text", (c) => void delete v5parts(c, 1).at(-1)!.text, v5.text);
    edit(
      "a v5 assistant file part of an image",
      (c) => v5parts(c, 1).push({ type: "file", mediaType: "image/png", url: "data:image/png;base64,AAAA" }),
      v5.text,
    );
    out.push(["a v5 user file part of an image (accepted: v4 reads only a user's text parts)", v5.file]);
    edit("a system message whose content is not a string", (c) => {
      c.unshift({ id: "s1", role: "system", content: 42 });
    });
    edit("a v4 assistant text part whose text is a number", (c) => {
      (parts(c).find((p) => p.type === "text") as Record<string, unknown>).text = 5;
    });
    edit(
      "a v4 reasoning detail whose text is a number",
      (c) => {
        (
          (parts(c).find((p) => p.type === "reasoning") as Record<string, unknown>).details as Array<
            Record<string, unknown>
          >
        )[0]!.text = 5;
      },
      chats.reasoning,
    );
    edit("a v4 tool invocation whose toolName is a number", (c) => {
      (parts(c)[1]!.toolInvocation as Record<string, unknown>).toolName = 5;
    });
    edit(
      "a v4 user attachment with no content",
      (c) => {
        delete c[0]!.parts;
        delete c[0]!.content;
      },
      chats.file,
    );
    return out;
  }
  out.push(["the v4 chat given to a new major", written["4"]!.tools]);
  edit("a tool part output-available without output", (c) => {
    delete parts(c)[1]!.output;
  });
  edit("an unknown part type", (c) => {
    parts(c).push({ type: "bogus", text: "x" });
  });
  edit("a message without an id", (c) => {
    delete c[1]!.id;
  });
  out.push(["no messages", []]);
  edit("a user message with no parts", (c) => {
    c[0]!.parts = [];
  });
  edit("a message of role data", (c) => {
    c[0]!.role = "data";
  });
  edit("a text part whose text is a number", (c) => {
    parts(c)[3]!.text = 42;
  });
  edit("an output-error part without errorText", (c) => {
    const p = parts(c)[1]!;
    delete p.output;
    p.state = "output-error";
  });
  edit("an unknown tool state", (c) => {
    parts(c)[1]!.state = "done";
  });
  edit("input-available with an output", (c) => {
    parts(c)[1]!.state = "input-available";
  });
  edit("providerMetadata that is not a record of records", (c) => {
    parts(c)[3]!.providerMetadata = { openai: 1 };
  });
  edit("a data part without data", (c) => {
    parts(c).push({ type: "data-weather" });
  });
  edit("parts that are an object", (c) => {
    c[0]!.parts = {};
  });
  // accepted
  edit("an assistant message with no parts (accepted)", (c) => {
    c[1]!.parts = [];
  });
  edit("keys zod does not know (accepted)", (c) => {
    c[1]!.createdAt = "2026-01-01";
    parts(c)[1]!.extra = { a: 1 };
  });
  edit("an output that is null (accepted)", (c) => {
    parts(c)[1]!.output = null;
  });
  edit("a data part with data (accepted)", (c) => {
    parts(c).push({ type: "data-weather", id: "d1", data: { city: "Paris" } });
  });
  edit("a v6 approval on a v5-shaped tool part", (c) => {
    const p = parts(c)[1]!;
    p.state = "approval-requested";
    delete p.output;
    p.approval = { id: "ap1", signature: "sig" };
  });
  edit("a v7 custom part", (c) => {
    parts(c).push({ type: "custom", kind: "note" });
  });
  edit("a v6 toolMetadata that is not an object", (c) => {
    parts(c)[1]!.toolMetadata = 5;
  });
  edit("a v7 tool title that is not a string", (c) => {
    parts(c)[1]!.title = 5;
  });
  return out;
}

/** Every object in a chat: each of its keys deleted, or replaced by null, a number, a string, an object. */
function mutations(chat: Chat): unknown[] {
  const out: unknown[] = [];
  const walk = (v: unknown, path: Array<string | number>) => {
    if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === "object") {
      for (const k of Object.keys(v)) {
        for (const repl of [undefined, null, 7, "x", {}]) {
          const c = clone(chat);
          let o: Record<string, unknown> = c as unknown as Record<string, unknown>;
          for (const p of path) o = o[p as string] as Record<string, unknown>;
          if (repl === undefined) delete o[k];
          else o[k] = repl;
          out.push(c);
        }
        walk((v as Record<string, unknown>)[k], [...path, k]);
      }
    }
  };
  walk(chat, []);
  return out;
}

const ckptVerdict = (major: string, messages: unknown, name = "chat.json") => {
  const r = validateDocument({ name, text: JSON.stringify(messages) }, { format: `ai-sdk@${major}` });
  return { valid: !r.fatal && r.valid, issues: r.issues, fatal: r.fatal };
};

let written: Written;
let named: Array<{ major: string; what: string; messages: unknown }>;
let mutated: Array<{ major: string; messages: unknown }>;
let verdicts: Verdict[];

beforeAll(async () => {
  written = (await runPeer<Written>("scripts/ai-sdk.mjs", { op: "write", majors: [4, 5, 6, 7] })).out;
  named = [];
  mutated = [];
  for (const major of MAJORS) {
    for (const [what, messages] of Object.entries(written[major]!))
      named.push({ major, what: `written: ${what}`, messages });
    for (const [what, messages] of variants(major, written[major]!, written)) named.push({ major, what, messages });
    for (const chat of ["tools", "tool-error", "file", "reasoning", "metadata"])
      for (const messages of mutations(written[major]![chat]!)) mutated.push({ major, messages });
  }
  // #37: chats of the newer shape given to ai@4, every key deleted or replaced too
  for (const chat of ["text", "tools", "file", "reasoning"])
    for (const messages of [written["5"]![chat]!, ...mutations(written["5"]![chat]!)])
      mutated.push({ major: "4", messages });
  const items = [...named, ...mutated].map(({ major, messages }) => ({ major: Number(major), messages }));
  verdicts = (await runPeer<Verdict[]>("scripts/ai-sdk.mjs", { op: "check", items }, { timeoutMs: 300_000 })).out;
}, 600_000);

describe("ckpt validate agrees with each AI SDK major's own validator", () => {
  it("on every chat each major's functions wrote (all valid, the major detected from the shape)", () => {
    for (const major of MAJORS) {
      for (const [what, messages] of Object.entries(written[major]!)) {
        const i = named.findIndex((n) => n.major === major && n.what === `written: ${what}`);
        expect(verdicts[i]!.ok, `${major} ${what}: ${verdicts[i]!.error}`).toBe(true);
        expect(ckptVerdict(major, messages).valid, `${major} ${what}`).toBe(true);
        // detected: v4 by its fields; v5-v7 chats of these shapes are read by ai@5, the oldest that reads them
        const r = validateDocument({ name: "chat.json", text: JSON.stringify(messages) });
        expect(r.format).toBe("ai-sdk");
        expect(r.formatVersion).toBe(major === "4" ? "4" : "5");
        expect(r.valid).toBe(true);
      }
    }
  });

  it("on at least eight broken variants per major, and on the odd ones it accepts", () => {
    for (const major of MAJORS) {
      const mine = named.map((n, i) => ({ ...n, i })).filter((n) => n.major === major && !n.what.startsWith("written"));
      const broken = mine.filter((n) => !verdicts[n.i]!.ok);
      expect(broken.length, `major ${major}`).toBeGreaterThanOrEqual(8);
      for (const n of mine) {
        const v = verdicts[n.i]!;
        const c = ckptVerdict(major, n.messages);
        expect(
          c.valid,
          `ai@${major}: ${n.what}: the SDK says ${v.ok ? "valid" : `invalid (${v.error?.slice(0, 300)})`}`,
        ).toBe(v.ok);
        if (!c.valid && !c.fatal) {
          // the first error has a JSON pointer into the chat and a rule id
          const e = c.issues.find((x) => x.severity === "error")!;
          expect(e.rule).toMatch(/^(schema|lint)\//);
          expect(e.pointer).toMatch(/^(\/|$)/);
        }
      }
    }
  });

  it("on every key of every object of the written chats deleted or replaced by a wrong value", () => {
    const disagree: string[] = [];
    mutated.forEach((m, k) => {
      const v = verdicts[named.length + k]!;
      const c = ckptVerdict(m.major, m.messages);
      if (c.valid !== v.ok)
        disagree.push(
          `ai@${m.major}: sdk ${v.ok ? "valid" : `invalid at ${JSON.stringify(v.path)}`}, ckpt ${c.valid ? "valid" : "invalid"}: ${JSON.stringify(m.messages).slice(0, 400)}`,
        );
    });
    expect(mutated.length).toBeGreaterThan(1000);
    // both answers occur for every major: the mutations probe what each validator rejects and what it lets pass
    for (const major of MAJORS) {
      const mine = mutated.map((m, k) => ({ m, v: verdicts[named.length + k]! })).filter((x) => x.m.major === major);
      expect(mine.filter((x) => !x.v.ok).length, `ai@${major} rejects`).toBeGreaterThan(20);
      expect(mine.filter((x) => x.v.ok).length, `ai@${major} accepts`).toBeGreaterThan(20);
    }
    expect(disagree.slice(0, 10)).toEqual([]);
  });

  it("says which majors accept a chat its own major judges otherwise", () => {
    const custom = clone(written["5"]!.text) as Array<Record<string, unknown>>;
    (custom[1]!.parts as unknown[]).push({ type: "custom", kind: "note" });
    // read as 7 (it has a v7 part): ai@7 accepts, ai@5 and ai@6 reject
    const r = validateDocument({ name: "c.json", text: JSON.stringify(custom) });
    expect(r.formatVersion).toBe("7");
    expect(r.valid).toBe(true);
    const w = r.issues.find((i) => i.rule === "lint/ai-sdk-majors");
    expect(w?.message).toMatch(/ai@5 and ai@6 reject it/);
    // named as 5: invalid, and the warning says ai@7 accepts it
    const r5 = validateDocument({ name: "c.json", text: JSON.stringify(custom) }, { format: "ai-sdk@5" });
    expect(r5.valid).toBe(false);
    expect(r5.issues.find((i) => i.rule === "lint/ai-sdk-majors")?.message).toMatch(/ai@7 accepts it/);
  });
});
