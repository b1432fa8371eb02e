"""Small helpers shared by the tests."""

import io


def png_bytes(width: int, height: int, color=(200, 10, 30)) -> bytes:
    from PIL import Image

    img = Image.new("RGB", (width, height), color)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()
