/**
 * #37: a v4 chat with attachments (`experimental_attachments`: images by data URL and by http URL, named or not, a
 * text file, a PDF), converted to AI SDK 5, 6 and 7, gives the model messages ai@4's own convertToCoreMessages gave
 * (compared in one spelling: test/helpers/ai-sdk-model.ts `normalize`, the bytes a data URL or a byte array holds,
 * a URL as its text). One peer process answers for every chat and major.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { convertDocument } from "../src/core/convert.js";
import { normalize } from "./helpers/ai-sdk-model.js";
import { runPeer } from "./helpers/peers.js";

const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const chat = (attachments: unknown[], parts = true) => [
  {
    id: "u1",
    role: "user",
    content: "What is this?",
    createdAt: "2026-01-01T00:00:01.000Z",
    experimental_attachments: attachments,
    ...(parts ? { parts: [{ type: "text", text: "What is this?" }] } : {}),
  },
  {
    id: "a1",
    role: "assistant",
    content: "A thing.",
    createdAt: "2026-01-01T00:00:02.000Z",
    parts: [{ type: "step-start" }, { type: "text", text: "A thing." }],
  },
];
const CHATS: Record<string, unknown[]> = {
  "a named PNG data URL": chat([{ name: "pixel.png", contentType: "image/png", url: `data:image/png;base64,${PNG}` }]),
  "an unnamed PNG data URL": chat([{ contentType: "image/png", url: `data:image/png;base64,${PNG}` }]),
  "an image by http URL": chat([{ name: "cat.png", contentType: "image/png", url: "https://example.com/cat.png" }]),
  "an unnamed image by http URL": chat([{ contentType: "image/jpeg", url: "https://example.com/cat.jpg" }]),
  "a text file": chat([
    {
      name: "notes.txt",
      contentType: "text/plain",
      url: `data:text/plain;base64,${Buffer.from("hello notes").toString("base64")}`,
    },
  ]),
  "a PDF data URL": chat([
    { name: "a.pdf", contentType: "application/pdf", url: "data:application/pdf;base64,JVBERi0=" },
  ]),
  "a PDF by http URL": chat([{ name: "a.pdf", contentType: "application/pdf", url: "https://example.com/a.pdf" }]),
  "an image, no parts": chat(
    [{ name: "pixel.png", contentType: "image/png", url: `data:image/png;base64,${PNG}` }],
    false,
  ),
  "two images": chat([
    { name: "a.png", contentType: "image/png", url: `data:image/png;base64,${PNG}` },
    { contentType: "image/png", url: "https://example.com/b.png" },
  ]),
};
const MAJORS = ["5", "6", "7"] as const;

/** The one spelling for a URL both sides give as text (ai@4 an URL object, serialised; ai@7 `{type: "url", url}`). */
function urls(model: unknown[]): unknown[] {
  return JSON.parse(
    JSON.stringify(normalize(model), (_k, v) => {
      if (v && typeof v === "object" && (v.type === "image" || v.type === "file")) {
        const src = v.image ?? v.data;
        const url = typeof src === "object" && src?.type === "url" ? src.url : src;
        if (typeof url === "string" && /^https?:/.test(url)) return { type: "url", url };
        // ai@4 gives a file attachment's data as the base64 after the data URL's comma: the same bytes
        if (typeof url === "string" && /^[A-Za-z0-9+/]+=*$/.test(url)) return { type: "bytes", bytes: url };
      }
      return v;
    }),
  );
}

interface Verdict {
  ok: boolean;
  model?: unknown[];
  error?: string;
}
let items: Array<{ what: string; major: string; messages: unknown[] }>;
let verdicts: Verdict[];

beforeAll(async () => {
  items = [];
  for (const [what, messages] of Object.entries(CHATS)) {
    items.push({ what, major: "4", messages });
    for (const major of MAJORS) {
      const r = convertDocument(
        { name: "chat.json", text: JSON.stringify(messages) },
        { from: "ai-sdk@4", to: "ai-sdk", version: major },
      );
      items.push({ what, major, messages: JSON.parse((r.output as { text: string }).text) });
    }
  }
  verdicts = (
    await runPeer<Verdict[]>("scripts/ai-sdk.mjs", {
      op: "check",
      items: items.map((i) => ({ major: Number(i.major), messages: i.messages })),
    })
  ).out;
}, 300_000);

describe("v4 attachments converted to AI SDK 5, 6, 7", () => {
  it("give the model messages ai@4 gave", () => {
    const bad: string[] = [];
    items.forEach((it, k) => {
      if (it.major === "4") return;
      const source = verdicts[items.findIndex((x) => x.what === it.what && x.major === "4")]!;
      const v = verdicts[k]!;
      expect(source.ok, `${it.what}: ai@4 ${source.error}`).toBe(true);
      if (!v.ok) bad.push(`${it.what} → ai@${it.major}: rejected (${v.error?.slice(0, 200)})`);
      else if (JSON.stringify(urls(v.model!)) !== JSON.stringify(urls(source.model!)))
        bad.push(
          `${it.what} → ai@${it.major}: ${JSON.stringify(urls(v.model!))} ≠ ai@4 ${JSON.stringify(urls(source.model!))}`,
        );
    });
    expect(bad).toEqual([]);
  });

  it("converted back to AI SDK 4, give back the attachments as they were", () => {
    for (const [what, messages] of Object.entries(CHATS)) {
      const v5 = convertDocument(
        { name: "chat.json", text: JSON.stringify(messages) },
        { from: "ai-sdk@4", to: "ai-sdk", version: "5" },
      );
      const back = convertDocument(
        { name: "chat.json", text: (v5.output as { text: string }).text },
        { from: "ai-sdk@5", to: "ai-sdk", version: "4" },
      );
      const m = JSON.parse((back.output as { text: string }).text) as Array<Record<string, unknown>>;
      expect(m[0]!.experimental_attachments, what).toEqual(
        (messages[0] as Record<string, unknown>).experimental_attachments,
      );
    }
  });
});
