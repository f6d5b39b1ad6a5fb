import { openCursor, signCursor } from '@svc/common';

/** Where a walk of the order list stands: after this row, in the list of this status. */
interface WalkPosition {
  /** undefined: every order. */
  status: number | undefined;
  /** The row's create_time, in seconds since 1970 (the column's precision). */
  createTime: number;
  id: number;
}

const VERSION = 1;
const EVERY_STATUS = 255;
const POSITION_BYTES = 10;

/** The cursor of the next page: `version | status | create_time | id`, signed (common's signCursor). */
export function encodeCursor(secret: Buffer, { status, createTime, id }: WalkPosition): string {
  const position = Buffer.alloc(POSITION_BYTES);
  position.writeUInt8(VERSION, 0);
  position.writeUInt8(status ?? EVERY_STATUS, 1);
  position.writeUInt32BE(createTime, 2);
  position.writeUInt32BE(id, 6);
  return signCursor(secret, position);
}

/** The position a cursor names; undefined when it is not one this service made, unaltered. */
export function decodeCursor(secret: Buffer, cursor: string): WalkPosition | undefined {
  const position = openCursor(secret, cursor, POSITION_BYTES);
  if (!position || position.readUInt8(0) !== VERSION) return undefined;
  const status = position.readUInt8(1);
  return {
    status: status === EVERY_STATUS ? undefined : status,
    createTime: position.readUInt32BE(2),
    id: position.readUInt32BE(6),
  };
}
