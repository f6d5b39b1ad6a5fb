import type { Request } from 'express';

/** The session of a request the guard let through: the guard ran before, so both are set. */
export function sessionOf(req: Request): { token: string; username: string } {
  return { token: req.token as string, username: req.user?.username as string };
}
