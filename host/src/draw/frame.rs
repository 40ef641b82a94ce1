//! A whole chart: its title and the lines under it, its panels side by side, and the legend
//! column to their right.

use super::look::{order, Palette};
use super::marker::draw_marker;
use super::panel::{draw_panel, Mark, Panel};
use super::style::{err, text_style, wrap, Area, FONT, FOOT_COLOUR, HEIGHT, LEGEND_W};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

pub(super) struct Header {
    pub(super) title: String,
    /// Lines under the title, with their colours.
    pub(super) lines: Vec<(String, RGBColor)>,
    /// Small print under the legend.
    pub(super) footer: Vec<String>,
    /// The legend's heading: what a series is (`memory type`, or `source` for the twin).
    pub(super) legend: &'static str,
}

/// The SVG of `panels` side by side (each `panel_w` px wide) under `head`, with the cache
/// markers `marks`, and the legend of every series to their right; Err when nothing has a
/// point.
pub(super) fn render(
    head: &Header,
    panels: &[Panel],
    marks: &[Mark],
    panel_w: u32,
) -> Result<String, String> {
    let (xmin, xmax) = panels
        .iter()
        .flat_map(|p| p.series.iter())
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    if !(xmin.is_finite() && xmax.is_finite()) {
        return Err("nothing to draw".to_string());
    }
    let x_range = (xmin - 0.4, xmax + 0.4);
    let n = panels.len() as u32;
    // Wide enough for the longest name (a twin's `pci:0000:00:01.0:res2_wc`), 8 px a letter.
    let longest = panels
        .iter()
        .flat_map(|p| p.series.iter())
        .map(|s| s.memtype.chars().count() as u32)
        .max()
        .unwrap_or(0);
    let legend_w = LEGEND_W.max(44 + 8 * longest);
    let width = panel_w * n + legend_w;
    // The lines under the title, each broken to fit the chart's width.
    let lines: Vec<(String, RGBColor)> = head
        .lines
        .iter()
        .flat_map(|(line, colour)| {
            wrap(line, 17, width as i32 - 40)
                .into_iter()
                .map(move |l| (l, *colour))
        })
        .collect();
    let title_h = 44 + 22 * lines.len() as u32;
    let height = HEIGHT + 22 * lines.len().saturating_sub(1) as u32;

    let mut names: Vec<&str> = Vec::new();
    for s in panels.iter().flat_map(|p| p.series.iter()) {
        if !names.contains(&s.memtype.as_str()) {
            names.push(&s.memtype);
        }
    }
    names.sort_by_key(|m| order(m));
    let palette = Palette::of(&names);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let title_style = TextStyle::from((FONT, 25, FontStyle::Bold).into_font())
            .pos(Pos::new(HPos::Center, VPos::Top));
        let centre = (width / 2) as i32;
        root.draw(&Text::new(head.title.clone(), (centre, 12), title_style))
            .map_err(err)?;
        for (i, (line, colour)) in lines.iter().enumerate() {
            let style = text_style(17, *colour, HPos::Center, VPos::Top);
            root.draw(&Text::new(
                line.clone(),
                (centre, 42 + 22 * i as i32),
                style,
            ))
            .map_err(err)?;
        }

        let (_, body) = root.split_vertically(title_h);
        let (plots, legend) = body.split_horizontally(panel_w * n);
        for (area, panel) in plots.split_evenly((1, n as usize)).iter().zip(panels) {
            draw_panel(&root, area, panel, x_range, marks, &palette)?;
        }
        draw_legend(&root, &legend, head, &names, &palette)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The legend: its heading, then a swatch and a name per series, the footer at the bottom.
fn draw_legend(
    root: &Area,
    legend: &Area,
    head: &Header,
    types: &[&str],
    palette: &Palette,
) -> Result<(), String> {
    let footer = &head.footer;
    let (xs, ys) = legend.get_pixel_range();
    let x = xs.start + 8;
    let mut y = ys.start + 44;
    let heading = TextStyle::from((FONT, 17, FontStyle::Bold).into_font())
        .pos(Pos::new(HPos::Left, VPos::Center));
    root.draw(&Text::new(head.legend, (x, y), heading))
        .map_err(err)?;
    for memtype in types {
        y += 24;
        let look = palette.get(memtype);
        root.draw(&Rectangle::new(
            [(x, y - 1), (x + 28, y + 1)],
            look.0.colour.filled(),
        ))
        .map_err(err)?;
        draw_marker(root, (x + 14, y), look)?;
        let style = text_style(16, BLACK, HPos::Left, VPos::Center);
        root.draw(&Text::new(memtype.to_string(), (x + 36, y), style))
            .map_err(err)?;
    }
    for (i, line) in footer.iter().rev().enumerate() {
        let style = text_style(14, FOOT_COLOUR, HPos::Left, VPos::Bottom);
        root.draw(&Text::new(
            line.clone(),
            (x, ys.end - 12 - 18 * i as i32),
            style,
        ))
        .map_err(err)?;
    }
    Ok(())
}
