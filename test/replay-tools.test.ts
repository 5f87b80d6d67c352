import { describe, expect, it } from "vitest";
import { emptyState, runStateTool, type ReplayState } from "../src/core/replay/state-tools.js";

// Expected strings are worked out by hand from deep-agent's documented tool behaviour (FORMATS.md §5.5).
const T = "2026-01-01T00:00:00.000Z";
function ctx(state: ReplayState, times: string[] = [T]) {
  let i = 0;
  return { state, now: () => times[Math.min(i++, times.length - 1)]! };
}
const run = (s: ReplayState, name: string, args: unknown, times?: string[]) => runStateTool(name, args, ctx(s, times));

describe("deep-agent state tools", () => {
  it("write_todos merges by id, keeps first-appearance order, appends new ids; merge=false replaces", () => {
    const s = emptyState();
    expect(
      run(s, "write_todos", {
        todos: [
          { id: "a", content: "A", status: "pending" },
          { id: "b", content: "B", status: "pending" },
        ],
      }).text,
    ).toBe("Todo list updated successfully.\n\nCurrent todos:\n- [pending] a: A\n- [pending] b: B");
    run(s, "write_todos", {
      todos: [
        { id: "c", content: "C", status: "in_progress" },
        { id: "a", content: "A2", status: "completed" },
      ],
    });
    expect(s.todos.map((t) => `${t.id}:${t.content}:${t.status}`)).toEqual([
      "a:A2:completed",
      "b:B:pending",
      "c:C:in_progress",
    ]);
    expect(run(s, "write_todos", { todos: [{ id: "z", content: "Z", status: "cancelled" }], merge: false }).text).toBe(
      "Todo list updated successfully.\n\nCurrent todos:\n- [cancelled] z: Z",
    );
  });

  it("write_todos refuses what deep-agent's zod schema refuses", () => {
    const s = emptyState();
    const long = run(s, "write_todos", { todos: [{ id: "a", content: "x".repeat(101), status: "pending" }] });
    expect(long.isError).toBe(true);
    expect(long.text).toMatch(/at most 100 characters/);
    expect(run(s, "write_todos", { todos: [] }).isError).toBe(true);
    expect(run(s, "write_todos", { todos: [{ id: "a", content: "x", status: "done" }] }).isError).toBe(true);
    expect(s.todos).toEqual([]);
  });

  it("write_file stores lines and refuses an existing path", () => {
    const s = emptyState();
    expect(run(s, "write_file", { file_path: "/a.md", content: "x\ny" }).text).toBe("Successfully wrote to '/a.md'");
    expect(s.files["/a.md"]).toEqual({ content: ["x", "y"], created_at: T, modified_at: T });
    expect(run(s, "write_file", { file_path: "/a.md", content: "z" }).text).toBe(
      "Cannot write to /a.md because it already exists. Read and then make an edit, or write to a new path.",
    );
  });

  it("ls lists direct children with sizes, folders, localeCompare order; size 0 omitted", () => {
    const s = emptyState();
    run(s, "write_file", { file_path: "/b.txt", content: "hello" });
    run(s, "write_file", { file_path: "/A.txt", content: "" });
    run(s, "write_file", { file_path: "/dir/x.txt", content: "1" });
    expect(run(s, "ls", {}).text).toBe("/A.txt\n/b.txt (5 bytes)\n/dir/ (directory)");
    expect(run(s, "ls", { path: "/dir" }).text).toBe("/dir/x.txt (1 bytes)");
    expect(run(s, "ls", { path: "/nope" }).text).toBe("No files found in /nope");
  });

  it("read_file numbers lines like cat -n, honours offset/limit, chunks long lines, reports errors", () => {
    const s = emptyState();
    run(s, "write_file", { file_path: "/f", content: "a\n\nc" });
    expect(run(s, "read_file", { file_path: "/f" }).text).toBe("     1\ta\n     2\t\n     3\tc");
    expect(run(s, "read_file", { file_path: "/f", offset: 2, limit: 5 }).text).toBe("     3\tc");
    expect(run(s, "read_file", { file_path: "/f", offset: 3 }).text).toBe(
      "Error: Line offset 3 exceeds file length (3 lines)",
    );
    expect(run(s, "read_file", { file_path: "/g" }).text).toBe("Error: File '/g' not found");
    run(s, "write_file", { file_path: "/e", content: "  \n" });
    expect(run(s, "read_file", { file_path: "/e" }).text).toBe("System reminder: File exists but has empty contents");
    run(s, "write_file", { file_path: "/long", content: "x".repeat(10_000) + "y".repeat(5) });
    expect(run(s, "read_file", { file_path: "/long" }).text).toBe(`     1\t${"x".repeat(10_000)}\n   1.1\tyyyyy`);
  });

  it("edit_file replaces one occurrence, refuses ambiguity without replace_all, keeps created_at", () => {
    const s = emptyState();
    run(s, "write_file", { file_path: "/f", content: "a b a" }, ["2026-01-01T00:00:00.000Z"]);
    expect(run(s, "edit_file", { file_path: "/f", old_string: "a", new_string: "c" }).text).toBe(
      "Error: String 'a' appears 2 times in file. Use replace_all=true to replace all instances, or provide a more specific string with surrounding context.",
    );
    expect(run(s, "edit_file", { file_path: "/f", old_string: "q", new_string: "c" }).text).toBe(
      "Error: String not found in file: 'q'",
    );
    expect(
      run(s, "edit_file", { file_path: "/f", old_string: "a", new_string: "c", replace_all: true }, [
        "2026-02-02T00:00:00.000Z",
      ]).text,
    ).toBe("Successfully replaced 2 occurrence(s) in '/f'");
    expect(s.files["/f"]).toEqual({
      content: ["c b c"],
      created_at: "2026-01-01T00:00:00.000Z",
      modified_at: "2026-02-02T00:00:00.000Z",
    });
    expect(run(s, "edit_file", { file_path: "/nope", old_string: "a", new_string: "b" }).text).toBe(
      "Error: File '/nope' not found",
    );
  });

  it("glob matches relative paths with dot files, newest modified first", () => {
    const s = emptyState();
    run(s, "write_file", { file_path: "/src/a.ts", content: "1" }, ["2026-01-01T00:00:00.000Z"]);
    run(s, "write_file", { file_path: "/src/.b.ts", content: "2" }, ["2026-03-01T00:00:00.000Z"]);
    run(s, "write_file", { file_path: "/c.md", content: "3" });
    expect(run(s, "glob", { pattern: "**/*.ts" }).text).toBe("/src/.b.ts\n/src/a.ts");
    expect(run(s, "glob", { pattern: "*.ts", path: "/src" }).text).toBe("/src/.b.ts\n/src/a.ts");
    expect(run(s, "glob", { pattern: "*.py" }).text).toBe("No files found matching pattern '*.py'");
  });

  it("grep groups matches by file, filters by glob, reports bad regexes", () => {
    const s = emptyState();
    run(s, "write_file", { file_path: "/a.ts", content: "foo\nbar foo" });
    run(s, "write_file", { file_path: "/b.md", content: "foo" });
    expect(run(s, "grep", { pattern: "foo" }).text).toBe("\n/a.ts:\n  1: foo\n  2: bar foo\n\n/b.md:\n  1: foo");
    expect(run(s, "grep", { pattern: "foo", glob: "*.md" }).text).toBe("\n/b.md:\n  1: foo");
    expect(run(s, "grep", { pattern: "zzz" }).text).toBe("No matches found for pattern 'zzz'");
    expect(run(s, "grep", { pattern: "(" }).text).toMatch(/^Invalid regex pattern: /);
  });
});
