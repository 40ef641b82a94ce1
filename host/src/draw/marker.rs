//! The markers of a series' points (and of the legend): one shape per look, filled or
//! hollow.

use super::look::{Look, Shape};
use super::style::{err, Area};
use plotters::prelude::*;

/// Draws the marker of `look` at (`x`, `y`): filled, or hollow (a white middle).
pub(super) fn draw_marker(
    root: &Area,
    (x, y): (i32, i32),
    (look, filled): (Look, bool),
) -> Result<(), String> {
    let colour = look.colour;
    let white = WHITE.filled();
    let (outer, inner): (ShapeStyle, ShapeStyle) = if filled {
        (colour.filled(), colour.filled())
    } else {
        (white, colour.stroke_width(2))
    };
    let regular = |r: f64, n: usize, turn: f64| -> Vec<(i32, i32)> {
        (0..n)
            .map(|i| {
                let a = turn + std::f64::consts::TAU * i as f64 / n as f64;
                (
                    x + (r * a.sin()).round() as i32,
                    y - (r * a.cos()).round() as i32,
                )
            })
            .collect()
    };
    let polygon = |points: &dyn Fn(f64) -> Vec<(i32, i32)>| -> Result<(), String> {
        root.draw(&Polygon::new(points(6.0), colour.filled()))
            .map_err(err)?;
        if !filled {
            root.draw(&Polygon::new(points(3.0), white)).map_err(err)?;
        }
        Ok(())
    };
    match look.shape {
        Shape::Circle | Shape::Square => {
            for style in [outer, inner] {
                if look.shape == Shape::Circle {
                    root.draw(&Circle::new((x, y), 4, style)).map_err(err)?;
                } else {
                    root.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], style))
                        .map_err(err)?;
                }
            }
        }
        Shape::Plus => draw_plus(root, (x, y), colour, filled)?,
        Shape::TriangleUp => polygon(&|r| regular(r, 3, 0.0))?,
        Shape::TriangleDown => polygon(&|r| regular(r, 3, std::f64::consts::PI))?,
        Shape::Diamond => polygon(&|r| regular(r, 4, 0.0))?,
        Shape::Pentagon => polygon(&|r| regular(r, 5, 0.0))?,
        Shape::Hourglass => polygon(&|r| {
            let r = r as i32;
            vec![
                (x - r, y - r),
                (x + r, y - r),
                (x - r, y + r),
                (x + r, y + r),
            ]
        })?,
        Shape::Hexagon => polygon(&|r| regular(r, 6, 0.0))?,
        Shape::Bowtie => polygon(&|r| {
            let r = r as i32;
            vec![
                (x - r, y - r),
                (x + r, y + r),
                (x + r, y - r),
                (x - r, y + r),
            ]
        })?,
    }
    Ok(())
}

/// The plus sign: two bars, with a white dot in the middle when hollow.
fn draw_plus(
    root: &Area,
    (x, y): (i32, i32),
    colour: RGBColor,
    filled: bool,
) -> Result<(), String> {
    let (arm, half) = (6, if filled { 2 } else { 1 });
    for [a, b] in [
        [(x - arm, y - half), (x + arm, y + half)],
        [(x - half, y - arm), (x + half, y + arm)],
    ] {
        root.draw(&Rectangle::new([a, b], colour.filled()))
            .map_err(err)?;
    }
    if !filled {
        root.draw(&Circle::new((x, y), 2, WHITE.filled()))
            .map_err(err)?;
    }
    Ok(())
}
