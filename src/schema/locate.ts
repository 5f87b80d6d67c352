/**
 * Positions of JSON pointers in JSON text for issue lists: the position tree and a line-start table are
 * built once, so each lookup costs the pointer's depth plus a binary search (not a scan from the start of
 * the text — a document with thousands of issues stays linear).
 */
import type * as jsonc from "jsonc-parser";
import { jsoncParser, pointerToPath } from "../base/json.js";

export interface Position {
  line: number;
  column: number;
}

/** Line-start offsets of a text, for offset → line:column by binary search. */
export function lineIndex(text: string): (offset: number) => Position {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: offset - starts[lo]! + 1 };
  };
}

/** A locator for JSON text: position of the value at a pointer (or of its nearest existing ancestor). */
export function fastJsonLocator(text: string): (pointer: string) => Position {
  let tree: jsonc.Node | undefined;
  let toPos: ((offset: number) => Position) | undefined;
  return (pointer) => {
    if (!toPos) {
      tree = jsoncParser().parseTree(text, [], { disallowComments: true, allowTrailingComma: false });
      toPos = lineIndex(text);
    }
    let node = tree;
    for (const seg of pointerToPath(pointer)) {
      if (!node) break;
      let next: jsonc.Node | undefined;
      if (node.type === "object") {
        for (const prop of node.children ?? []) if (prop.children?.[0]?.value === seg) next = prop.children[1]; // last wins, as in JSON.parse
      } else if (node.type === "array" && /^\d+$/.test(seg)) next = node.children?.[Number(seg)];
      if (!next) break;
      node = next;
    }
    return toPos(node?.offset ?? 0);
  };
}
