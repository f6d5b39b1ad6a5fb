import { z } from 'zod';

/** The login's device token, as the login answers it. */
export const deviceTokenField = z
  .string()
  .regex(/^[A-Za-z0-9_-]{50}$/)
  .describe(
    'Names this user and this device, signed by the service: send it back as `X-Device-Token` ' +
      'on later logins. The one sent when it was valid, else a new one.',
  );

export const DEVICE_TOKEN = 'AQAAAAFkZXZpY2Utb2YtYWxpY2UhkHwIAK_kyxJDu32n0VolRA';

/** The login's optional header. */
export const deviceTokenHeader = z.object({
  'X-Device-Token': z
    .string()
    .optional()
    .describe(
      'The `deviceToken` of an earlier login of this user on this device. With a valid one the ' +
        "login counts against this device alone and is let in while the username's budget across " +
        'addresses is spent; a forged, altered or other user’s token counts as none.',
    ),
});
