#!/usr/bin/env python3
"""Writes the golden cases' binary inputs (report.pdf, plan.docx, locked.pdf…) from this script, so
what they hold is readable here: python3 golden/doc2md/make_inputs.py (idempotent, stdlib only)."""
import os, zipfile, zlib

HERE = os.path.dirname(os.path.abspath(__file__))


def pdf(pages, info, encrypt=False):
    objs = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(len(pages)))
    objs.append("<< /Type /Catalog /Pages 2 0 R >>")
    objs.append(f"<< /Type /Pages /Kids [{kids}] /Count {len(pages)} >>")
    font = 3 + 2 * len(pages)
    for i, lines in enumerate(pages):
        body = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(
            "(" + l.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ") Tj T*" for l in lines
        ) + " ET"
        objs.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * i} 0 R "
                    f"/Resources << /Font << /F1 {font} 0 R >> >> >>")
        objs.append(f"<< /Length {len(body)} >>\nstream\n{body}\nendstream")
    objs.append("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
    objs.append("<< " + " ".join(f"/{k} ({v})" for k, v in info.items()) + " >>")
    info_id = len(objs)
    extra = ""
    if encrypt:
        objs.append("<< /Filter /Standard /V 1 /R 2 /O <" + "00" * 32 + "> /U <" + "11" * 32 + "> /P -4 >>")
        extra = f" /Encrypt {len(objs)} 0 R /ID [<00112233445566778899aabbccddeeff> <00112233445566778899aabbccddeeff>]"
    out = b"%PDF-1.4\n"
    offsets = []
    for n, o in enumerate(objs, 1):
        offsets.append(len(out))
        out += f"{n} 0 obj\n{o}\nendobj\n".encode("latin-1")
    xref = len(out)
    out += f"xref\n0 {len(objs) + 1}\n0000000000 65535 f \n".encode()
    for off in offsets:
        out += f"{off:010d} 00000 n \n".encode()
    out += f"trailer\n<< /Size {len(objs) + 1} /Root 1 0 R /Info {info_id} 0 R{extra} >>\nstartxref\n{xref}\n%%EOF\n".encode()
    return out


def docx(body, core):
    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
    path = os.path.join(HERE, "docx-headings-lists-tables", "plan.docx")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, text in [
            ("[Content_Types].xml", "<Types/>"),
            ("word/document.xml", f"<w:document {w}><w:body>{body}</w:body></w:document>"),
            ("docProps/core.xml", core),
        ]:
            info = zipfile.ZipInfo(name, date_time=(2024, 3, 1, 9, 0, 0))
            z.writestr(info, text, zipfile.ZIP_DEFLATED)


def p(text, style=None, numbered=False):
    ppr = ""
    if style or numbered:
        ppr = "<w:pPr>" + (f'<w:pStyle w:val="{style}"/>' if style else "") + (
            '<w:numPr><w:ilvl w:val="0"/><w:numId w:val="1"/></w:numPr>' if numbered else "") + "</w:pPr>"
    return f'<w:p>{ppr}<w:r><w:t xml:space="preserve">{text}</w:t></w:r></w:p>'


def write(case, name, data):
    os.makedirs(os.path.dirname(os.path.join(HERE, case, name)), exist_ok=True)
    with open(os.path.join(HERE, case, name), "wb") as f:
        f.write(data)


write("pdf-pages-and-info", "report.pdf", pdf(
    [["Cache migration report", "The cache moved from Redis to SQLite."],
     ["Results", "Latency fell by 40 percent (p50 12 ms)."]],
    {"Title": "Cache migration", "Author": "Ada Lovelace", "CreationDate": "D:20240301093000+01'00'"}))
write("pdf-encrypted", "locked.pdf", pdf([["secret"]], {"Title": "Locked"}, encrypt=True))
write("folder-rest-still-converted", "docs/broken.pdf", b"%PDF-1.7\n1 0 obj << /Type /Catalog")
os.makedirs(os.path.join(HERE, "docx-headings-lists-tables"), exist_ok=True)
docx("".join([
    p("Decisions for the next release."),
    p("Storage", "Heading1"),
    p("We keep SQLite &amp; tantivy; no server."),
    p("one file per home", numbered=True),
    p("atomic writes", numbered=True),
    p("Numbers", "Heading2"),
    "<w:tbl><w:tr><w:tc>" + p("metric") + "</w:tc><w:tc>" + p("value") + "</w:tc></w:tr>"
    "<w:tr><w:tc>" + p("p50") + "</w:tc><w:tc>" + p("12 ms") + "</w:tc></w:tr></w:tbl>",
]), '<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/">'
    "<dc:title>Release plan</dc:title><dc:creator>Grace Hopper</dc:creator>"
    "<dcterms:created>2024-02-10T08:00:00Z</dcterms:created></cp:coreProperties>")
write("docx-encrypted-or-old", "old.docx", bytes([0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]) + b"\0" * 504)
write("text-latin1", "notes.txt", "Caf\u00e9 menu: cr\u00e8me br\u00fbl\u00e9e\r\nsecond line\r\n".encode("latin-1"))
