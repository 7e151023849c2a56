package glfw

import (
	"errors"
	"fmt"
	"image"
	"strings"

	"github.com/go-gl/gl/v3.3-core/gl"
)

// Color is a colour for OpenGL: red, green, blue and alpha, each from 0 to 1.
type Color struct{ R, G, B, A float32 }

// Gray returns the opaque grey of brightness v, from 0 (black) to 1 (white).
func Gray(v float32) Color { return Color{v, v, v, 1} }

// Renderer draws into a window with OpenGL: it clears to a colour, fills rectangles given in
// pixels from the top-left corner, and reads the frame back. Its viewport follows the window's
// framebuffer: each drawing call first matches it to the window's size, so a resized window is
// drawn whole from the next frame on.
//
// Like the window, a Renderer is used on the main thread only.
type Renderer struct {
	win         *Window
	vpW, vpH    int // the viewport set last
	program     uint32
	vao, vbo    uint32
	rectLoc     int32 // uniform vec4: x, y, width, height in pixels
	viewportLoc int32 // uniform vec2: the viewport's size in pixels
	colorLoc    int32 // uniform vec4: the fill colour
	closed      bool
}

// The rectangle shader: a unit square, placed and scaled in pixels by a uniform, then turned
// into clip space with the y axis pointing down, as in window and image coordinates.
const (
	rectVertexShader = `#version 330 core
layout(location = 0) in vec2 corner;
uniform vec4 rect;
uniform vec2 viewport;
void main() {
	vec2 pixel = rect.xy + corner * rect.zw;
	vec2 ndc = pixel / viewport * 2.0 - 1.0;
	gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
}
`
	rectFragmentShader = `#version 330 core
uniform vec4 color;
out vec4 fragColor;
void main() {
	fragColor = color;
}
`
)

// NewRenderer returns a renderer for w, whose context must be current (Open makes it so).
func NewRenderer(w *Window) (*Renderer, error) {
	prog, err := linkProgram(rectVertexShader, rectFragmentShader)
	if err != nil {
		return nil, fmt.Errorf("glfw: renderer: %w", err)
	}
	r := &Renderer{win: w, program: prog}
	r.rectLoc = gl.GetUniformLocation(prog, gl.Str("rect\x00"))
	r.viewportLoc = gl.GetUniformLocation(prog, gl.Str("viewport\x00"))
	r.colorLoc = gl.GetUniformLocation(prog, gl.Str("color\x00"))

	corners := []float32{0, 0, 1, 0, 0, 1, 1, 1} // a triangle strip over the unit square
	gl.GenVertexArrays(1, &r.vao)
	gl.BindVertexArray(r.vao)
	gl.GenBuffers(1, &r.vbo)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
	gl.BufferData(gl.ARRAY_BUFFER, len(corners)*4, gl.Ptr(corners), gl.STATIC_DRAW)
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 2, gl.FLOAT, false, 2*4, 0)
	gl.BindVertexArray(0)

	gl.Enable(gl.BLEND)
	gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
	r.followWindow()
	if code := gl.GetError(); code != gl.NO_ERROR {
		r.Close()
		return nil, fmt.Errorf("glfw: renderer: OpenGL error 0x%x", code)
	}
	return r, nil
}

func compileShader(kind uint32, source string) (uint32, error) {
	shader := gl.CreateShader(kind)
	src, free := gl.Strs(source + "\x00")
	gl.ShaderSource(shader, 1, src, nil)
	free()
	gl.CompileShader(shader)
	var ok int32
	gl.GetShaderiv(shader, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(shader, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n)+1)
		gl.GetShaderInfoLog(shader, n, nil, gl.Str(log))
		gl.DeleteShader(shader)
		return 0, fmt.Errorf("compiling shader: %s", strings.TrimRight(log, "\x00"))
	}
	return shader, nil
}

func linkProgram(vertex, fragment string) (uint32, error) {
	vs, err := compileShader(gl.VERTEX_SHADER, vertex)
	if err != nil {
		return 0, err
	}
	defer gl.DeleteShader(vs)
	fs, err := compileShader(gl.FRAGMENT_SHADER, fragment)
	if err != nil {
		return 0, err
	}
	defer gl.DeleteShader(fs)
	prog := gl.CreateProgram()
	gl.AttachShader(prog, vs)
	gl.AttachShader(prog, fs)
	gl.LinkProgram(prog)
	var ok int32
	gl.GetProgramiv(prog, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(prog, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n)+1)
		gl.GetProgramInfoLog(prog, n, nil, gl.Str(log))
		gl.DeleteProgram(prog)
		return 0, fmt.Errorf("linking program: %s", strings.TrimRight(log, "\x00"))
	}
	return prog, nil
}

// followWindow sets the viewport to the window's framebuffer when its size has changed.
func (r *Renderer) followWindow() {
	w, h := r.win.Size()
	if w != r.vpW || h != r.vpH {
		gl.Viewport(0, 0, int32(w), int32(h))
		r.vpW, r.vpH = w, h
	}
}

// Viewport returns the size of the viewport, in pixels: the window's framebuffer as of the
// last drawing call.
func (r *Renderer) Viewport() (width, height int) { return r.vpW, r.vpH }

// Clear fills the whole frame with c.
func (r *Renderer) Clear(c Color) {
	r.followWindow()
	gl.ClearColor(c.R, c.G, c.B, c.A)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
}

// FillRect fills the rectangle of the given size whose top-left corner is at x, y, in pixels
// from the top-left corner of the frame, with c (blended by its alpha).
func (r *Renderer) FillRect(x, y, width, height float32, c Color) {
	r.followWindow()
	if r.vpW <= 0 || r.vpH <= 0 {
		return
	}
	gl.UseProgram(r.program)
	gl.Uniform4f(r.rectLoc, x, y, width, height)
	gl.Uniform2f(r.viewportLoc, float32(r.vpW), float32(r.vpH))
	gl.Uniform4f(r.colorLoc, c.R, c.G, c.B, c.A)
	gl.BindVertexArray(r.vao)
	gl.DrawArrays(gl.TRIANGLE_STRIP, 0, 4)
	gl.BindVertexArray(0)
}

// ReadPixels returns the frame drawn so far (the back buffer: call it after drawing and before
// the buffers are swapped), top row first. The window is opaque on screen, so alpha is 255.
func (r *Renderer) ReadPixels() (*image.RGBA, error) {
	w, h := r.win.Size()
	if w <= 0 || h <= 0 {
		return nil, errors.New("glfw: reading pixels: the window has no size")
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadBuffer(gl.BACK)
	// OpenGL's rows run bottom-up; read them whole, then flip into the image.
	bottomUp := make([]byte, w*h*4)
	gl.ReadPixels(0, 0, int32(w), int32(h), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(bottomUp))
	if code := gl.GetError(); code != gl.NO_ERROR {
		return nil, fmt.Errorf("glfw: reading pixels: OpenGL error 0x%x", code)
	}
	stride := w * 4
	for y := range h {
		copy(img.Pix[y*img.Stride:y*img.Stride+stride], bottomUp[(h-1-y)*stride:(h-y)*stride])
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img, nil
}

// Close frees the renderer's OpenGL objects. Call it before the window is closed.
func (r *Renderer) Close() {
	if r.closed {
		return
	}
	r.closed = true
	gl.DeleteBuffers(1, &r.vbo)
	gl.DeleteVertexArrays(1, &r.vao)
	gl.DeleteProgram(r.program)
}
