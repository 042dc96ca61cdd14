"""`icetable calibrate SOURCE`: find the mat, fit the table plane, learn colours, save the file."""
from __future__ import annotations

import sys
from pathlib import Path

from calibration.calibfile import FORMAT, default_colors, save
from calibration.enrol import enrol_into
from calibration.homography import MatNotFound
from calibration.intrinsics import calibrate as fit_intrinsics
from calibration.layout import PALETTE_COLORS, PAPERS, cards_layout, palette_layout, sheet_layout
from calibration.palette import learn_colors, palette_fit
from calibration.paleness import pale_table_warning, plastic_paleness
from calibration.session import CalibrationFailed, build, collect_board_views, collect_mat_views
from icetable import checks
from icetable.cli import UserError
from vision.camera import COMMON_HFOV
from vision.sources import FrameSourceError, open_frames, read_image

MAX_FRAMES = 300      # frames read from a camera or video before giving up
MAX_AREA = 3000.0     # mm: the largest play-area side (corner cards farther apart are not seen)
MAX_VIEWS = 50
MAX_ERROR = 2.0       # mm: a table plane fit worse than this is not written (a right layout fits
                      # within 1 mm; corner cards laid out for another --area miss by 2 to 30 mm)


def register(sub) -> None:
    p = sub.add_parser("calibrate", help="calibrate the camera over the mat; writes a calibration file")
    p.add_argument("source", help="camera index (0), video file, image file or folder of images")
    p.add_argument("--mat", default="cards", choices=tuple(PAPERS) + ("cards",),
                   help="the printed target: a4, letter, a3 sheet, or cards (default) around --area")
    p.add_argument("--area", default="600x450", help="play area WxH in mm for corner cards (default 600x450)")
    p.add_argument("--views", type=int, default=5, help=f"mat views to collect (default 5, at most {MAX_VIEWS})")
    p.add_argument("--charuco", metavar="SOURCE", help="views of the ChArUco board for the lens intrinsics")
    p.add_argument("--palette", metavar="IMAGE", help="photo of the pyramids on the palette sheet")
    p.add_argument("--enrol", nargs="+", metavar="PHOTO",
                   help="learn your piecepack from photos of it in the enrolment arrangement: "
                        "faces, backs and optionally pyramids (docs/vision-piecepack.md)")
    p.add_argument("--out", "-o", default="calibration.json",
                   help="calibration file to write (an earlier calibration there is replaced)")
    p.add_argument("--force", action="store_true", help="overwrite --out even if it is not a calibration file")
    p.add_argument("--max-error", type=float, default=MAX_ERROR, metavar="MM",
                   help=f"refuse a table plane whose reprojection error is over this (default {MAX_ERROR:g} mm)")
    p.set_defaults(run=run)


def _layout(args):
    if args.mat != "cards":
        return sheet_layout(args.mat)
    return cards_layout(*checks.size("--area", args.area, 100.0, MAX_AREA))


def _check_fit(rms_mm: float, args) -> None:
    """Refuse a table plane the markers fit worse than `--max-error`: they do not sit where the
    layout says, most often corner cards laid out for another `--area`."""
    if rms_mm <= args.max_error:
        return
    if args.mat == "cards":
        layout, check = f"--mat cards --area {args.area}", "the area the corner cards are laid out for"
    else:
        layout, check = f"--mat {args.mat}", "the paper size, printed at true scale"
    raise UserError(f"{args.source}: reprojection error {rms_mm:.1f} mm is over {args.max_error:g} mm: the markers "
                    f"are not where {layout} puts them (check {check}); "
                    f"{args.out} not written (--max-error to keep it anyway)")


def _show(progress) -> None:
    print(f"\r{progress.line()[:100]:100s}", end="", file=sys.stderr, flush=True)


def _check(args) -> None:
    """Options in range, and --out not one of the inputs nor a file other than a calibration."""
    checks.number("--views", args.views, 1, MAX_VIEWS)
    checks.number("--max-error", args.max_error, 0.1, 1000.0)
    inputs = [args.source, args.charuco, args.palette, *(args.enrol or ())]
    checks.output(args.out, "--out", inputs, _calibration, args.force)


def _calibration(path: Path) -> bool:
    return checks.json_with(path, lambda d: d.get("format") == FORMAT)


def run(args) -> int:
    _check(args)
    layout = _layout(args)
    try:
        K = dist = None
        if args.charuco:
            views, size = collect_board_views(open_frames(args.charuco, MAX_FRAMES), 12, _show)
            print(file=sys.stderr)
            K, dist, rms_px = fit_intrinsics(views, size)
            print(f"intrinsics from {len(views)} board views: reprojection {rms_px:.2f} px", file=sys.stderr)
        fits, size, paleness = collect_mat_views(open_frames(args.source, MAX_FRAMES), layout, args.views, K, dist, _show)
        print(file=sys.stderr)
        calibration = build(layout, fits, size, K, dist)
        white, enrol_warnings = None, []
        if args.palette:
            photo = read_image(args.palette)
            fit = palette_fit(photo, calibration.K, calibration.dist)
            colors = learn_colors(photo, calibration.K, calibration.dist, fit=fit)
            white = plastic_paleness(photo, fit, palette_layout())
            calibration = calibration.with_colors(colors.completed(default_colors()))
            print(f"colours learned: {', '.join(colors.names)}", file=sys.stderr)
            missing = [c for c in PALETTE_COLORS if c not in colors.names]
            if missing:
                print(f"colours not learned: {', '.join(missing)}: too few pixels on their spots differ from "
                      "the sheet (no pyramid there, or one as pale as the grey field); the shipped profile "
                      "stands in for them", file=sys.stderr)
        if args.enrol:
            print(f"learning the piecepack from {len(args.enrol)} photos ...", file=sys.stderr, flush=True)
            calibration, enrol_warnings = enrol_into(calibration, args.enrol)
            print(f"piecepack enrolled from {len(args.enrol)} photos", file=sys.stderr)
    except (FrameSourceError, CalibrationFailed) as exc:
        raise UserError(str(exc)) from None
    except MatNotFound as exc:
        raise UserError(f"{args.palette}: palette sheet not found ({exc})") from None
    except ValueError as exc:
        raise UserError(str(exc)) from None
    _check_fit(calibration.rms_mm, args)
    try:
        save(calibration, args.out)
    except OSError as exc:
        raise UserError(f"{args.out}: cannot write ({exc.strerror or exc})") from None
    print(f"table plane: {len(fits)} views, reprojection error {calibration.rms_mm:.2f} mm "
          f"(intrinsics: {calibration.intrinsics}); wrote {Path(args.out)}")
    if calibration.intrinsics == "uncertain":
        print("warning: the views do not pin the lens's focal length down (the camera looks nearly straight "
              f"down): a common camera's ({COMMON_HFOV:g} degrees across) is assumed, and heights and sizes may "
              "be off with it; add views at a slant (--views) or calibrate the lens with the ChArUco board "
              "(--charuco)", file=sys.stderr)
    for warning in [pale_table_warning(paleness, layout, white)] + enrol_warnings:
        if warning:
            print(warning, file=sys.stderr)
    return 0
