import { AppError, openCursor, sharedSecrets, signCursor } from '@svc/common';
import type { Request } from 'express';
import type { PlatformDatabase } from '../store/database.js';
import { CURSOR_MALFORMED, CURSOR_OTHER_STATUS } from './order.messages.js';

/** A row's place in the list's order, newest first. */
export interface RowPosition {
  /** create_time in seconds since 1970, the column's precision. */
  createTime: number;
  id: number;
}

/** Where a walk of the order list stands: after this row, in the list of this status. */
interface WalkPosition extends RowPosition {
  /** undefined: every order. */
  status: number | undefined;
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

/**
 * The secret that signs the order list's cursors, which every instance on the
 * database shares (common's sharedSecrets, in `platform_secrets`); both of its
 * statements go to the primary, where a new secret is written.
 */
export function cursorSecret(db: PlatformDatabase): () => Promise<Buffer> {
  const secrets = sharedSecrets<'cursor'>(db, 'platform_secrets');
  return () => secrets('cursor');
}

/** The row a walk's cursor stands after: a 400 for one not made here, or made for another status. */
export function positionOf(
  secret: Buffer,
  cursor: string,
  status: number | undefined,
): RowPosition {
  const position = decodeCursor(secret, cursor);
  if (!position) throw new AppError(400, CURSOR_MALFORMED);
  if (position.status !== status) throw new AppError(400, CURSOR_OTHER_STATUS);
  return position;
}

/** The same list with the next cursor: its path and parameters as asked, `cursor` replaced. */
export function nextPage(req: Request, cursor: string): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(req.query)) {
    if (name !== 'cursor' && typeof value === 'string') params.append(name, value);
  }
  params.append('cursor', cursor);
  return `${req.baseUrl}${req.path}?${params}`;
}
