# SPDX-License-Identifier: MIT
"""Mail as the mail programs people use write it, for the inbound tests:
a reply from Gmail (multipart/alternative, quoted-printable, the quote
under "On ... wrote:"), from Outlook (base64, ISO-8859-1, an HTML part
with Word's markup), from Apple Mail (multipart/mixed around an
alternative, an attachment), an HTML-only newsletter reply with a
script, a bounce as Postfix writes it (RFC 3464), and a broken message.
Each is bytes with CRLF line ends, as an MTA hands it over."""

import base64
import quopri


def wire(text):
    """`text` as an MTA hands it over: CRLF line ends, one byte a
    character (what is not ASCII in these samples is Latin-1 on purpose)."""
    return text.replace("\n", "\r\n").encode("latin-1")


def qp(text):
    return quopri.encodestring(text.encode("utf-8")).decode("ascii")


def b64(data, width=76):
    s = base64.b64encode(data).decode("ascii")
    return "\n".join(s[i:i + width] for i in range(0, len(s), width))


def gmail_reply(sender, to, subject, in_reply_to, text):
    quoted = "On Tue, 8 Dec 2026 at 10:02, Clear Fitness <%s> wrote:\n> Your plan for March\n" % to
    return ("Delivered-To: %(to)s\n"
            "MIME-Version: 1.0\n"
            "Date: Tue, 8 Dec 2026 10:15:42 +0100\n"
            "References: %(irt)s\n"
            "In-Reply-To: %(irt)s\n"
            "Message-ID: <CAF=gmail+reply0001@mail.gmail.com>\n"
            "Subject: Re: %(subject)s\n"
            "From: Ann Lee <%(sender)s>\n"
            "To: Clear Fitness <%(to)s>\n"
            "Content-Type: multipart/alternative; boundary=\"000000000000a1b2c3d4e5f6\"\n"
            "\n"
            "--000000000000a1b2c3d4e5f6\n"
            "Content-Type: text/plain; charset=\"UTF-8\"\n"
            "Content-Transfer-Encoding: quoted-printable\n"
            "\n%(plain)s\n"
            "--000000000000a1b2c3d4e5f6\n"
            "Content-Type: text/html; charset=\"UTF-8\"\n"
            "Content-Transfer-Encoding: quoted-printable\n"
            "\n%(html)s\n"
            "--000000000000a1b2c3d4e5f6--\n") % {
        "to": to, "irt": in_reply_to, "subject": subject, "sender": sender,
        "plain": qp(text + "\n\n" + quoted), "html": qp("<div dir=\"ltr\">%s</div>" % text)}


def outlook_message(sender, name, to, subject, text_latin1):
    html = ("<html xmlns:o=\"urn:schemas-microsoft-com:office:office\"><head><meta http-equiv="
            "\"Content-Type\" content=\"text/html; charset=iso-8859-1\"><style><!-- p.MsoNormal"
            " {margin:0cm;} --></style></head><body lang=\"DE\"><div class=\"WordSection1\">"
            "<p class=\"MsoNormal\">%s</p></div></body></html>" % text_latin1)
    return ("Received: from AM0PR01MB1234.eurprd01.prod.exchangelabs.com\n"
            "From: %(name)s <%(sender)s>\n"
            "To: \"%(to)s\" <%(to)s>\n"
            "Subject: %(subject)s\n"
            "Thread-Topic: %(subject)s\n"
            "Thread-Index: AQHa1b2c3d4e5f6g7h8i9j0k==\n"
            "Date: Wed, 9 Dec 2026 08:01:12 +0000\n"
            "Message-ID: <AM0PR01MB1234ABCD@AM0PR01MB1234.eurprd01.prod.exchangelabs.com>\n"
            "Accept-Language: de-DE, en-US\n"
            "Content-Language: de-DE\n"
            "X-MS-Has-Attach:\n"
            "Content-Type: multipart/alternative;\n"
            "\tboundary=\"_000_AM0PR01MB1234ABCD_\"\n"
            "MIME-Version: 1.0\n"
            "\n"
            "--_000_AM0PR01MB1234ABCD_\n"
            "Content-Type: text/plain; charset=\"iso-8859-1\"\n"
            "Content-Transfer-Encoding: base64\n"
            "\n%(plain)s\n\n"
            "--_000_AM0PR01MB1234ABCD_\n"
            "Content-Type: text/html; charset=\"iso-8859-1\"\n"
            "Content-Transfer-Encoding: base64\n"
            "\n%(html)s\n\n"
            "--_000_AM0PR01MB1234ABCD_--\n") % {
        "name": name, "sender": sender, "to": to, "subject": subject,
        "plain": b64(text_latin1.encode("latin-1")), "html": b64(html.encode("latin-1"))}


def apple_mail_with_attachment(sender, to, subject, text, filename, data):
    return ("From: Bo Park <%(sender)s>\n"
            "Content-Type: multipart/mixed;\n"
            "\tboundary=\"Apple-Mail=_5F0C1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B\"\n"
            "Mime-Version: 1.0 (Mac OS X Mail 16.0 \\(3774.600.62\\))\n"
            "Subject: %(subject)s\n"
            "Message-Id: <6F1E2D3C-4B5A-4968-8776-A5B4C3D2E1F0@example.test>\n"
            "Date: Thu, 10 Dec 2026 18:22:03 -0800\n"
            "To: %(to)s\n"
            "X-Mailer: Apple Mail (2.3774.600.62)\n"
            "\n"
            "--Apple-Mail=_5F0C1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B\n"
            "Content-Type: multipart/alternative;\n"
            "\tboundary=\"Apple-Mail=_9A8B7C6D-5E4F-4A3B-9C2D-1E0F9A8B7C6D\"\n"
            "\n"
            "--Apple-Mail=_9A8B7C6D-5E4F-4A3B-9C2D-1E0F9A8B7C6D\n"
            "Content-Transfer-Encoding: quoted-printable\n"
            "Content-Type: text/plain;\n"
            "\tcharset=utf-8\n"
            "\n%(plain)s\n"
            "--Apple-Mail=_9A8B7C6D-5E4F-4A3B-9C2D-1E0F9A8B7C6D\n"
            "Content-Transfer-Encoding: 7bit\n"
            "Content-Type: text/html;\n"
            "\tcharset=us-ascii\n"
            "\n<html><head><meta http-equiv=\"content-type\" content=\"text/html; charset=us-ascii\"></head>"
            "<body style=\"overflow-wrap: break-word;\">See attached.</body></html>\n"
            "--Apple-Mail=_9A8B7C6D-5E4F-4A3B-9C2D-1E0F9A8B7C6D--\n"
            "\n"
            "--Apple-Mail=_5F0C1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B\n"
            "Content-Disposition: attachment;\n"
            "\tfilename=%(filename)s\n"
            "Content-Type: application/pdf;\n"
            "\tx-unix-mode=0644;\n"
            "\tname=\"%(filename)s\"\n"
            "Content-Transfer-Encoding: base64\n"
            "\n%(data)s\n"
            "--Apple-Mail=_5F0C1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B--\n") % {
        "sender": sender, "to": to, "subject": subject, "plain": qp(text), "filename": filename,
        "data": b64(data)}


def html_only(sender, to):
    return ("Reply-To: %(sender)s\n"
            "From: Cleo <%(sender)s>\n"
            "To: %(to)s\n"
            "Subject: Interested\n"
            "Message-ID: <html-only-1@example.test>\n"
            "MIME-Version: 1.0\n"
            "Content-Type: text/html; charset=utf-8\n"
            "\n"
            "<html><head><style>p { color: red }</style><script>alert('x')</script></head>"
            "<body><p>Yes, I&#39;m interested &amp; free on Friday.</p><p>Cleo</p></body></html>\n") % {
        "sender": sender, "to": to}


def postfix_bounce(to, failed, original_id):
    return ("From: MAILER-DAEMON@relay.example.test (Mail Delivery System)\n"
            "Subject: Undelivered Mail Returned to Sender\n"
            "To: %(to)s\n"
            "Auto-Submitted: auto-replied\n"
            "MIME-Version: 1.0\n"
            "Content-Type: multipart/report; report-type=delivery-status;\n"
            "\tboundary=\"B1A2C3D4E5.1733500000/relay.example.test\"\n"
            "Message-Id: <20261206180000.B1A2C3D4E5@relay.example.test>\n"
            "\n"
            "This is a MIME-encapsulated message.\n"
            "\n"
            "--B1A2C3D4E5.1733500000/relay.example.test\n"
            "Content-Description: Notification\n"
            "Content-Type: text/plain; charset=us-ascii\n"
            "\n"
            "This is the mail system at host relay.example.test.\n\n"
            "I'm sorry to have to inform you that your message could not\n"
            "be delivered to one or more recipients.\n\n"
            "<%(failed)s>: host mx.example.test[192.0.2.1] said: 550 5.1.1\n"
            "    <%(failed)s>: Recipient address rejected: User unknown\n"
            "\n"
            "--B1A2C3D4E5.1733500000/relay.example.test\n"
            "Content-Description: Delivery report\n"
            "Content-Type: message/delivery-status\n"
            "\n"
            "Reporting-MTA: dns; relay.example.test\n"
            "X-Postfix-Queue-ID: B1A2C3D4E5\n"
            "Arrival-Date: Sun,  6 Dec 2026 18:00:00 +0000 (UTC)\n"
            "\n"
            "Final-Recipient: rfc822; %(failed)s\n"
            "Original-Recipient: rfc822;%(failed)s\n"
            "Action: failed\n"
            "Status: 5.1.1\n"
            "Remote-MTA: dns; mx.example.test\n"
            "Diagnostic-Code: smtp; 550 5.1.1 <%(failed)s>: Recipient address rejected: User unknown\n"
            "\n"
            "--B1A2C3D4E5.1733500000/relay.example.test\n"
            "Content-Description: Undelivered Message Headers\n"
            "Content-Type: text/rfc822-headers\n"
            "\n"
            "From: Clear Fitness <%(to)s>\n"
            "To: <%(failed)s>\n"
            "Subject: Your plan\n"
            "Message-ID: %(id)s\n"
            "\n"
            "--B1A2C3D4E5.1733500000/relay.example.test--\n") % {
        "to": to, "failed": failed, "id": original_id}


BROKEN = ("From: Dee <dee@example.test>\n"
          "To: %s\n"
          "Subject: =?UTF-8?B?broken?=\n"
          "Content-Type: multipart/mixed; boundary=\"never-closed\"\n"
          "\n"
          "--never-closed\n"
          "Content-Type: text/plain; charset=no-such-charset\n"
          "Content-Transfer-Encoding: base64\n"
          "\n"
          "!!! this is not base64 at all \xff\xfe\n")
