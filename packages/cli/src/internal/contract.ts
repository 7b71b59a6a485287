/**
 * The parts of the command-line I/O contract (see Io.ts) that need no effect
 * runtime: the two errors, parsing the JSON input, the output line and the
 * one-line refusal. Io.ts and the effect/cli commands use them, and so does the
 * fast start of the protocol commands (fastPath.ts), which cannot afford to load
 * the runtime. Only `effect/Data` is imported here.
 *
 * @internal
 */
import * as Data from "effect/Data"

/**
 * Input that the command cannot work with: exit 2 with one line on stderr.
 *
 * @category errors
 * @since 0.1.0
 */
export class BadInput extends Data.TaggedError("BadInput")<{ readonly message: string }> {}

/**
 * The command ran and its verdict is "invalid": exit 1. Its JSON result has
 * already been written to stdout.
 *
 * @category errors
 * @since 0.1.0
 */
export class Invalid extends Data.TaggedError("Invalid")<{ readonly message: string }> {}

/** The text of input bytes: UTF-8, a leading byte order mark dropped, bad sequences as U+FFFD. */
export const decodeInput = (bytes: Uint8Array): string => new TextDecoder().decode(bytes)

/** Parses the JSON input; throws {@link BadInput} for input that is not JSON. */
export const parseJsonInput = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch (e) {
    throw new BadInput({ message: `input is not JSON: ${(e as Error).message}` })
  }
}

/** The standard output of a command that prints a JSON value: the value and LF. */
export const jsonLine = (value: unknown): string => `${JSON.stringify(value)}\n`

/** The one stderr line of a refusal (exit 2): `svc: ` and the message on one line. */
export const refusalLine = (message: string): string => `svc: ${message.replace(/\s*\n\s*/g, " ").trim()}\n`
