"""The light-normalised view piecepack detection works on: the cloth's model."""
import numpy as np
import pytest

from vision.piecepack.view import LOG, cloth_model

SIZE, BORDER_PX = 600, 18
WHITE, RED = np.array([200.0, 205.0, 210.0]), np.array([40.0, 35.0, 140.0])     # BGR


def _lit(albedo: np.ndarray) -> np.ndarray:
    """The cloth under a light twice as bright on the right as on the left."""
    light = np.linspace(0.55, 1.1, SIZE)[None, :, None]
    return np.clip(albedo * light, 0, 255).astype(np.uint8)


def _checks(side_px: int) -> np.ndarray:
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    red = ((xx // side_px + yy // side_px) % 2 == 1)[..., None]
    return np.where(red, RED, WHITE)


@pytest.mark.parametrize("side_px", [40, 100])
def test_a_gingham_is_modelled_as_two_colours_under_one_light(side_px):
    """Whatever share of the border each check takes, the white checks come out as the
    cloth all over the view, and the red ones as the other colour."""
    image = _lit(_checks(side_px))
    model, other = cloth_model(image, BORDER_PX)
    ratio = LOG[image] - model
    white = (_checks(side_px) == WHITE).all(axis=-1)
    assert other is not None
    np.testing.assert_allclose(other, np.log((RED + 2) / (WHITE + 2)), atol=0.08)
    assert np.abs(ratio[white]).max(axis=-1).mean() < 0.05
    assert np.abs(ratio[~white] - other).max(axis=-1).mean() < 0.05


def test_a_cloth_half_in_a_light_pool_has_one_colour():
    """Bright on one half, dim on the other: the two levels do not alternate along the border,
    so it is one cloth under uneven light, not two colours."""
    albedo = np.broadcast_to(WHITE * 0.6, (SIZE, SIZE, 3)).copy()
    albedo[:, : SIZE // 2] *= 1.8
    _, other = cloth_model(np.clip(albedo, 0, 255).astype(np.uint8), BORDER_PX)
    assert other is None


def test_a_plain_cloth_has_one_colour_and_its_light_cancels():
    image = _lit(np.broadcast_to(RED, (SIZE, SIZE, 3)))
    model, other = cloth_model(image, BORDER_PX)
    assert other is None
    assert np.abs(LOG[image] - model).max() < 0.05
