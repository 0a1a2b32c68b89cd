`timescale 1ns/1ps
// Self-checking testbench for uart_rx (8N1, 4 cycles per bit). Frames are
// serialised by the testbench: good frames (all byte values at random, plus
// 0x00, 0xFF, 0x55), frames with a stop bit of 0 (framing error, or break when
// the data is 0), frames with a glitch inside a bit (noise error), false start
// bits, back-to-back frames and random idle gaps; also bursts of line noise
// followed by an idle line, after which reception must resume. A monitor
// counts every result pulse and the testbench checks, per frame, that exactly
// the expected one arrived (for a glitch: at least one noise error and nothing else), at the end of the stop bit, with the right data.
module tb_uart_rx;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        rx;
    wire [7:0] data_out;
    wire       data_valid, frame_err, break_det, noise_err, busy;

    uart_rx dut (.clk(clk), .rst_n(rst_n), .rx(rx), .data_out(data_out), .data_valid(data_valid),
                 .frame_err(frame_err), .break_det(break_det), .noise_err(noise_err), .busy(busy));

    always #5 clk = ~clk;

    reg [31:0] seed;
    function [31:0] urand;
        input dummy;
        begin
            seed  = seed ^ (seed << 13);
            seed  = seed ^ (seed >> 17);
            seed  = seed ^ (seed << 5);
            urand = seed;
        end
    endfunction

    integer errors, n, i, c, frames;
    integer n_valid, n_frame, n_break, n_noise;
    reg [7:0] last_data;

    // monitor: count the result pulses
    always @(posedge clk) begin
        #1;
        if (data_valid + frame_err + break_det + noise_err > 1) begin
            errors = errors + 1;
            $display("ERROR t=%0t: several result pulses at once", $time);
        end
        if (data_valid) begin n_valid = n_valid + 1; last_data = data_out; end
        if (frame_err) n_frame = n_frame + 1;
        if (break_det) n_break = n_break + 1;
        if (noise_err) n_noise = n_noise + 1;
    end

    task line;   // drive rx for one cycle
        input v;
        begin @(negedge clk); rx = v; end
    endtask

    task clear;
        begin n_valid = 0; n_frame = 0; n_break = 0; n_noise = 0; end
    endtask

    // one frame; kind 0 good, 1 stop bit 0, 2 glitch in data bit `gbit` (cycle 2)
    task frame;
        input [7:0] data; input integer kind; input integer gbit;
        begin
            for (c = 0; c < 4; c = c + 1) line(1'b0);
            for (i = 0; i < 8; i = i + 1)
                for (c = 0; c < 4; c = c + 1)
                    line((kind == 2 && i == gbit && c == 2) ? ~data[i] : data[i]);
            for (c = 0; c < 4; c = c + 1) line(kind != 1);
        end
    endtask

    // check the pulses since clear after the frame's last cycle has been taken
    task check_frame;
        input [7:0] data; input integer kind;
        begin
            @(negedge clk);
            rx = 1'b1;               // from the frame's last edge on, the line idles
            if (kind == 0 && !(n_valid == 1 && last_data == data && n_frame + n_break + n_noise == 0) ||
                kind == 1 && data != 0 && !(n_frame == 1 && n_valid + n_break + n_noise == 0) ||
                kind == 1 && data == 0 && !(n_break == 1 && n_valid + n_frame + n_noise == 0) ||
                kind == 2 && !(n_noise >= 1 && n_valid + n_frame + n_break == 0)) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: frame %h kind %0d: valid %0d (%h) frame %0d break %0d noise %0d",
                             $time, data, kind, n_valid, last_data, n_frame, n_break, n_noise);
            end
            frames = frames + 1;
        end
    endtask

    task send;   // a frame, the pulse check, and the line back high (and clear)
        input [7:0] data; input integer kind; input integer gap;
        begin
            clear;
            frame(data, kind, urand(0) % 8);
            check_frame(data, kind);
            // after a noise error the rest of the frame may start a false frame: idle a whole frame
            for (i = 0; i < (kind == 2 ? 44 : gap); i = i + 1) line(1'b1);
            clear;
        end
    endtask

    initial begin
        errors = 0; frames = 0; clear;
        seed = 32'h0AA5_5AA0;
        rx = 1; rst_n = 0;
        #12 rst_n = 1;
        line(1); line(1);
        send(8'h00, 0, 2); send(8'hFF, 0, 2); send(8'h55, 0, 2); send(8'hAA, 0, 2);
        send(8'h3C, 1, 2); send(8'h00, 1, 3); send(8'h81, 2, 3);
        // back to back: the next start bit right after a stop bit
        clear; frame(8'h12, 0, 0); frame(8'h34, 0, 0); @(negedge clk); rx = 1'b1;
        if (n_valid != 2 || last_data != 8'h34 || n_frame + n_break + n_noise != 0) begin errors = errors + 1; $display("back-to-back: %0d frames", n_valid); end
        line(1); clear;
        // false starts: a short low pulse is ignored
        for (n = 1; n < 4; n = n + 1) begin
            for (c = 0; c < n; c = c + 1) line(0);
            line(1); line(1);
        end
        @(negedge clk);
        if (n_valid + n_frame + n_break + n_noise != 0) begin errors = errors + 1; $display("false start gave a result"); end
        for (n = 0; n < 400; n = n + 1) begin
            c = urand(0) % 10;
            send(urand(0), c < 7 ? 0 : c < 9 ? 1 : 2, urand(0) % 3);
            if ((urand(0) % 50) == 0) begin
                // line noise, then the line idles for a whole frame: reception resumes
                for (i = 0; i < 200; i = i + 1) line(urand(0) % 2);
                for (i = 0; i < 44; i = i + 1) line(1);
                clear;
            end
        end
        if (frames < 300) errors = errors + 1;
        if (errors == 0) $display("TEST PASSED");
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
