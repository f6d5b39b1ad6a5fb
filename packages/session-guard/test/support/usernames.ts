import { randomBytes } from 'node:crypto';

/** A username no other test of the run is likely to use. */
export const user = () => `User_${randomBytes(4).toString('hex')}`;
