import { z } from 'zod';
import { validationMessages as m } from '../messages.ts';
import { FULL_NAME_MIN_LENGTH, PASSWORD_MIN_LENGTH } from '../constants.ts';

/**
 * The contract between the auth forms and the auth API. The browser validates with these
 * same schemas before sending, and the server validates again on receipt.
 */
const passwordTooLong = 'Password must be at most 256 characters';

export const emailSchema = z.string().trim().toLowerCase().max(254, m.emailInvalid).pipe(z.email(m.emailInvalid));

/**
 * Sign-up and sign-in without an email or a password (left out, or not text) get the
 * specified message (docs/product/specification.md §5) rather than the validator's own
 * wording; a form always sends both.
 */
const credentialText = () => z.string({ error: m.emailOrPhoneRequired });
const accountEmailSchema = credentialText().trim().toLowerCase().max(254, m.emailInvalid).pipe(z.email(m.emailInvalid));

export const newPasswordSchema = z
  .string()
  .max(256, passwordTooLong)
  .min(PASSWORD_MIN_LENGTH, m.passwordMin)
  .regex(/\d/, m.passwordNumber)
  .regex(/[^A-Za-z0-9]/, m.passwordSpecial);

export const fullNameSchema = z
  .string()
  .trim()
  .min(FULL_NAME_MIN_LENGTH, m.fullNameMin)
  .max(100, 'Full name must be at most 100 characters');

export const signUpSchema = z
  .object(
    {
      fullName: fullNameSchema,
      email: accountEmailSchema,
      password: credentialText().pipe(newPasswordSchema),
      confirmPassword: z.string({ error: m.passwordsDontMatch }).max(256, m.passwordsDontMatch),
    },
    { error: m.emailOrPhoneRequired },
  )
  .refine((input) => input.password === input.confirmPassword, {
    message: m.passwordsDontMatch,
    path: ['confirmPassword'],
  });
export type SignUpInput = z.input<typeof signUpSchema>;
/** A sign-up as the checks pass it on: trimmed, the email in lower case. */
export type SignUp = z.output<typeof signUpSchema>;

export const signInSchema = z.object(
  {
    email: accountEmailSchema,
    password: credentialText().min(1, m.passwordRequired).max(256, passwordTooLong),
    rememberMe: z.boolean().optional(),
  },
  { error: m.emailOrPhoneRequired },
);
export type SignInInput = z.input<typeof signInSchema>;

export const forgotPasswordSchema = z.object({ email: emailSchema });
export type ForgotPasswordInput = z.input<typeof forgotPasswordSchema>;

export const resetPasswordSchema = z
  .object({
    token: z.string().min(1).max(512),
    password: newPasswordSchema,
    confirmPassword: z.string().max(256),
  })
  .refine((input) => input.password === input.confirmPassword, {
    message: m.passwordsDontMatch,
    path: ['confirmPassword'],
  });
export type ResetPasswordInput = z.input<typeof resetPasswordSchema>;

export const verifyEmailSchema = z.object({ token: z.string().min(1).max(4096) });

export const resendVerificationSchema = z.object({ email: emailSchema });

export const sessionUserSchema = z.object({
  id: z.string(),
  email: z.string(),
  fullName: z.string(),
});
export type SessionUser = z.infer<typeof sessionUserSchema>;

export const sessionResponseSchema = z.object({ user: sessionUserSchema });

export const messageResponseSchema = z.object({ message: z.string() });

/** The answer to a verification link: whether it also signed the owner in. */
export const verifyEmailResponseSchema = z.object({ message: z.string(), signedIn: z.boolean() });
