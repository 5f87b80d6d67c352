/**
 * A seeded corpus for `ckpt scan` and `--redact`: one value of every kind ckpt looks for, in the formats the real
 * issuers use (key prefixes, lengths and alphabets from each provider's documentation; a card number that passes the
 * Luhn check; a PEM private key block), placed in a conversation's plain text, tool arguments, tool results and
 * state. `value` is exactly what must disappear (a URL's password, a home path's user name); `kind` what scan calls it.
 */
import type { Checkpoint } from "../../src/generated/types.js";

export interface Seed {
  name: string;
  kind: "secrets" | "email" | "phone" | "ip" | "card" | "path";
  value: string;
}

const alnum = (n: number, seed: number) => {
  const chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let s = "";
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648;
    s += chars[x % chars.length];
  }
  return s;
};

const PEM = [
  "-----BEGIN RSA PRIVATE KEY-----",
  "MIIBOgIBAAJBAKj34GkxFhD90vcNLYLInFEX6Ppy1tPf9Cnzj4p4WGeKLs1Pt8Qu",
  "KUpRKfFLfRYC9AIKjbJTWit+CqvjWYzvQwECAwEAAQJAIJLixBy2qpFoS4DSmoEm",
  "-----END RSA PRIVATE KEY-----",
].join("\n");

export const SEEDS: Seed[] = [
  { name: "aws access key id", kind: "secrets", value: "AKIAZ3MSJV4WWNKWW5FG" },
  { name: "aws secret access key", kind: "secrets", value: `wJalrXUtnFEMI/K7MDENG/bPxRfiCY${alnum(10, 7)}` },
  { name: "github token", kind: "secrets", value: `ghp_${alnum(36, 11)}` },
  { name: "openai project key", kind: "secrets", value: `sk-proj-${alnum(58, 13)}T3BlbkFJ${alnum(58, 17)}` },
  { name: "anthropic key", kind: "secrets", value: `sk-ant-api03-${alnum(93, 19)}-${alnum(6, 23)}AA` },
  { name: "google api key", kind: "secrets", value: `AIza${alnum(35, 29)}` },
  { name: "slack bot token", kind: "secrets", value: `xoxb-123456789012-1234567890123-${alnum(24, 31)}` },
  { name: "stripe secret key", kind: "secrets", value: `sk_live_51${alnum(30, 37)}` },
  {
    name: "jwt",
    kind: "secrets",
    value:
      "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
  },
  { name: "private key block", kind: "secrets", value: PEM },
  { name: "url password", kind: "secrets", value: "S3cretPassw0rd" },
  { name: "email", kind: "email", value: "alice.smith@example.com" },
  { name: "phone", kind: "phone", value: "+1 415-555-0134" },
  { name: "ipv4", kind: "ip", value: "203.0.113.42" },
  { name: "card", kind: "card", value: "4111 1111 1111 1111" },
  { name: "home path user", kind: "path", value: "alice" },
];

const v = (name: string) => SEEDS.find((s) => s.name === name)!.value;

/** The seeded conversation: every seed in plain text, tool arguments, tool results or state. */
export function seededCheckpoint(threadId = "seed-1"): Checkpoint {
  return {
    schemaVersion: 1,
    threadId,
    step: 2,
    messages: [
      { role: "system", content: [{ type: "text", text: "You are a deployment assistant." }] },
      {
        role: "user",
        content: [
          {
            type: "text",
            text: `Hi, I am Alice (${v("email")}, phone ${v("phone")}). My session token is ${v("jwt")} — deploy please.`,
          },
        ],
      },
      {
        role: "assistant",
        content: [
          {
            type: "text",
            text: `I will use the key you pasted:\n${v("private key block")}\nand the Google key ${v("google api key")}.`,
          },
          {
            type: "toolCall",
            id: "call_1",
            name: "deploy",
            arguments: {
              github: v("github token"),
              aws: { id: v("aws access key id"), config: `aws_secret_access_key=${v("aws secret access key")}` },
              database: `postgres://admin:${v("url password")}@db.example.com:5432/app`,
              stripe: v("stripe secret key"),
              slack: v("slack bot token"),
            },
          },
        ],
        stopReason: "toolUse",
      },
      {
        role: "toolResult",
        toolCallId: "call_1",
        toolName: "deploy",
        content: [
          {
            type: "text",
            text: `deployed /home/${v("home path user")}/app to ${v("ipv4")} with OPENAI_API_KEY=${v("openai project key")} and ANTHROPIC_API_KEY=${v("anthropic key")}; mail ${v("email")} again`,
          },
        ],
        isError: false,
      },
      {
        role: "assistant",
        content: [{ type: "text", text: `Done. Your email ${v("email")} gets the report.` }],
        stopReason: "stop",
      },
    ],
    state: { billing: `card on file ${v("card")}`, contact: v("email") } as Checkpoint["state"],
  };
}
