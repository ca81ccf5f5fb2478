"""The photo of a table: an image or a PDF by its content, capped, an image re-encoded
without EXIF.
"""

from __future__ import annotations

import hashlib
import io
import warnings

from django.conf import settings
from django.core.files.base import ContentFile
from PIL import Image, ImageOps, UnidentifiedImageError

from core.errors import DomainError

IMAGE_FORMATS = {
    "JPEG": ("image/jpeg", "jpg"),
    "PNG": ("image/png", "png"),
    "WEBP": ("image/webp", "webp"),
}
PDF_MAGIC = b"%PDF-"


def photo_clean(upload) -> tuple[ContentFile, str]:
    """The uploaded file -> (what is stored, its content type). An image is re-encoded by
    Pillow without EXIF (turned upright first, so nothing is lost to the eye); a PDF is
    kept as sent. Anything else, or a file over ``TARIFF_SUBMISSION_MAX_BYTES``, is
    refused naming ``photo``."""
    limit = settings.TARIFF_SUBMISSION_MAX_BYTES
    if upload is None:
        raise DomainError(
            "invalid_input",
            "A photo of the table is required.",
            errors={"photo": ["A photo or PDF of the table is required."]},
        )
    if upload.size > limit:
        message = f"The file is {upload.size} bytes; at most {limit} bytes ({limit // (1024 * 1024)} MB) are taken."
        raise DomainError("payload_too_large", message, errors={"photo": [message]})
    upload.seek(0)
    head = upload.read(len(PDF_MAGIC))
    upload.seek(0)
    if head == PDF_MAGIC:
        content = upload.read()
        if b"%%EOF" not in content[-1024:]:
            raise _not_a_photo("The PDF is incomplete.")
        return ContentFile(content, name="table.pdf"), "application/pdf"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(upload)
            image_format = image.format
            if image_format not in IMAGE_FORMATS:
                raise _not_a_photo(f"{image_format} images are not taken.")
            image.load()
            upright = ImageOps.exif_transpose(image)
    except (
        UnidentifiedImageError,
        OSError,
        SyntaxError,
        ValueError,
        Image.DecompressionBombError,
        Image.DecompressionBombWarning,
    ):
        raise _not_a_photo("The file is not an image or a PDF.") from None
    content_type, extension = IMAGE_FORMATS[image_format]
    out = io.BytesIO()
    if image_format == "JPEG":
        upright.convert("RGB").save(out, "JPEG", quality=90, exif=b"")
    elif image_format == "WEBP":
        upright.save(out, "WEBP", quality=90, exif=b"")
    else:
        upright.save(out, "PNG")
    return ContentFile(out.getvalue(), name=f"table.{extension}"), content_type


def _not_a_photo(detail: str) -> DomainError:
    message = f"{detail} Send a photo (JPEG, PNG or WebP) or a PDF of the table."
    return DomainError("invalid_input", message, errors={"photo": [message]})


def photo_sha256(upload) -> str:
    digest = hashlib.sha256()
    upload.seek(0)
    for chunk in upload.chunks() if hasattr(upload, "chunks") else [upload.read()]:
        digest.update(chunk)
    upload.seek(0)
    return digest.hexdigest()
