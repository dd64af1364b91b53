"""Synthetic table photos with exact ground truth.

Game scene modules (``synth/<game>.py``) draw their pieces as ``synth.layers.Layer`` sheets;
``synth.photo`` renders them (``sample_conditions`` + ``render_photo``) with the table surface
(``synth.surfaces``), the ArUco markers (``synth.markers``), light (``synth.lighting``), a hand
(``synth.hand``) and clutter (``synth.clutter``) through the camera and lens of ``synth.camera``;
``synth.truthio`` writes photo + truth files; ``synth.roundtrip`` measures the calibration on them.
"""
