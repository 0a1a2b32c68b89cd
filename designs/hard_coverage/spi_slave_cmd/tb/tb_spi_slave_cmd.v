`timescale 1ns/1ps
// Self-checking testbench for spi_slave_cmd: directed frames (a write to every
// register, the A5 key, reads back over miso, refused accesses, NOP, CLEAR, aborts
// in the command and the data byte, back-to-back frames), then 1500 random frames
// with random sclk stretching, aborts and resets. A frame-level model is stepped at
// each rising edge; every output is checked every cycle.
module tb_spi_slave_cmd;
    reg        clk = 1'b0;
    reg        rst_n;
    reg        cs_n, sclk, mosi;
    wire       miso, cmd_done, frame_done, addr_hit, addr_err, armed;
    wire [1:0] op;
    wire [5:0] addr;
    wire [7:0] rd_data;

    spi_slave_cmd dut (.clk(clk), .rst_n(rst_n), .cs_n(cs_n), .sclk(sclk), .mosi(mosi),
                       .miso(miso), .cmd_done(cmd_done), .frame_done(frame_done), .op(op),
                       .addr(addr), .addr_hit(addr_hit), .rd_data(rd_data),
                       .addr_err(addr_err), .armed(armed));

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

    // model: the bits of the frame so far, the registers, the outgoing byte
    reg  [7:0] m_regs [0:7];
    reg [15:0] m_frame;
    integer    m_bits;
    reg        m_sclk_q, m_cmd_done, m_frame_done, m_err, m_armed;
    reg  [1:0] m_op;
    reg  [5:0] m_addr;
    reg  [7:0] m_rd, m_tx, d;
    reg  [5:0] a;
    reg  [1:0] o;
    integer    errors, n, k, n_frames, n_armed, n_reads;

    task check;
        begin
            if (miso !== m_tx[7] || cmd_done !== m_cmd_done || frame_done !== m_frame_done ||
                op !== m_op || addr !== m_addr || addr_hit !== (m_addr >= 6'h38) ||
                rd_data !== m_rd || addr_err !== m_err || armed !== m_armed) begin
                errors = errors + 1;
                if (errors <= 10)
                    $display("MISMATCH t=%0t: miso=%b cmd=%b frame=%b op=%0d addr=%h rd=%h err=%b armed=%b expected miso=%b cmd=%b frame=%b op=%0d addr=%h rd=%h err=%b armed=%b",
                             $time, miso, cmd_done, frame_done, op, addr, rd_data, addr_err, armed,
                             m_tx[7], m_cmd_done, m_frame_done, m_op, m_addr, m_rd, m_err, m_armed);
            end
        end
    endtask

    task model_reset;
        integer j;
        begin
            for (j = 0; j < 8; j = j + 1) m_regs[j] = 8'd0;
            m_frame = 0; m_bits = 0; m_sclk_q = 0; m_cmd_done = 0; m_frame_done = 0;
            m_err = 0; m_armed = 0; m_op = 0; m_addr = 0; m_rd = 0; m_tx = 0;
        end
    endtask

    task model_step;
        integer j;
        begin
            m_cmd_done = 0; m_frame_done = 0;
            if (cs_n) begin
                m_bits = 0; m_tx = 0;
            end else if (sclk && !m_sclk_q) begin
                m_frame = {m_frame[14:0], mosi};
                m_bits  = m_bits + 1;
                m_tx    = m_tx << 1;
                if (m_bits == 8) begin
                    m_op = m_frame[7:6]; m_addr = m_frame[5:0]; m_cmd_done = 1;
                    if (m_op == 2 && m_addr >= 6'h38) m_tx = m_regs[m_addr - 6'h38];
                end else if (m_bits == 16) begin
                    m_bits = 0; m_frame_done = 1; n_frames = n_frames + 1;
                    case (m_op)
                        1: if (m_addr >= 6'h38) begin
                               m_regs[m_addr - 6'h38] = m_frame[7:0];
                               if (m_addr == 6'h3C && m_frame[7:0] == 8'hA5) begin m_armed = 1; n_armed = n_armed + 1; end
                           end else m_err = 1;
                        2: begin
                               n_reads = n_reads + 1;
                               if (m_addr >= 6'h38) m_rd = m_regs[m_addr - 6'h38];
                               else begin m_rd = 0; m_err = 1; end
                           end
                        3: begin
                               for (j = 0; j < 8; j = j + 1) m_regs[j] = 8'd0;
                               m_armed = 0;
                           end
                        default: ;
                    endcase
                end
            end
            m_sclk_q = sclk;
        end
    endtask

    task cycle;
        input c; input s; input m;
        begin
            @(negedge clk);
            check;
            cs_n = c; sclk = s; mosi = m;
            @(posedge clk);
            model_step;
        end
    endtask

    // one bit: sclk low for lo cycles, then high for hi cycles
    task send_bit;
        input b; input integer lo; input integer hi;
        integer j;
        begin
            for (j = 0; j < lo; j = j + 1) cycle(1'b0, 1'b0, b);
            for (j = 0; j < hi; j = j + 1) cycle(1'b0, 1'b1, b);
        end
    endtask

    // nbits bits of a frame, MSB first (16: the whole frame), then cs_n high if rel
    task frame;
        input [15:0] w; input integer nbits; input rel;
        integer j;
        begin
            for (j = 15; j > 15 - nbits; j = j - 1) send_bit(w[j], 1, 1);
            if (rel) begin cycle(1'b1, 1'b0, 1'b0); cycle(1'b1, 1'b0, 1'b0); end
        end
    endtask

    // a frame with random sclk phases, the bits random by half, and a rare abort
    task random_frame;
        input [15:0] w;
        integer j, stop_at;
        begin
            stop_at = (urand(0) % 10 == 0) ? urand(0) % 16 : 16;
            for (j = 15; j > 15 - stop_at; j = j - 1) send_bit(w[j], 1 + urand(0) % 3, 1 + urand(0) % 3);
            if (urand(0) % 4 != 0 || stop_at != 16)
                for (j = 0; j < 1 + urand(0) % 3; j = j + 1) cycle(1'b1, urand(0), urand(0));
        end
    endtask

    initial begin
        errors = 0; n_frames = 0; n_armed = 0; n_reads = 0;
        seed = 32'h5B1C_0D3C;
        cs_n = 1'b1; sclk = 1'b0; mosi = 1'b0;
        model_reset;
        rst_n = 1'b0;
        #12 rst_n = 1'b1;
        for (k = 0; k < 8; k = k + 1) frame({2'd1, 3'b111, k[2:0], 8'h11 * k[7:0] + 8'h0F}, 16, 1);
        for (k = 0; k < 8; k = k + 1) frame({2'd2, 3'b111, k[2:0], 8'h00}, 16, 1);
        frame({2'd1, 6'h3C, 8'hA4}, 16, 1);                 // not the key
        frame({2'd1, 6'h3C, 8'hA5}, 16, 1);                 // the key
        frame({2'd2, 6'h3C, 8'h00}, 16, 0);                 // read it back, back to back
        frame({2'd0, 6'h3C, 8'hFF}, 16, 1);                 // NOP
        frame({2'd1, 6'h05, 8'h77}, 16, 1);                 // refused write
        frame({2'd2, 6'h37, 8'h00}, 16, 1);                 // refused read
        frame({2'd2, 6'h3D, 8'h00}, 5, 1);                  // abort in the command byte
        frame({2'd2, 6'h3D, 8'h00}, 12, 1);                 // abort in the data byte
        frame({2'd3, 6'h00, 8'h00}, 16, 1);                 // CLEAR
        frame({2'd2, 6'h3C, 8'h00}, 16, 1);
        for (n = 0; n < 1500; n = n + 1) begin
            k = urand(0) % 100;
            d = (k < 20) ? 8'hA5 : urand(0);
            a = urand(0);
            if (urand(0) % 8 != 0) a[5:3] = 3'b111;
            o = (k < 5) ? 2'd3 : ((k < 50) ? 2'd1 : ((k < 90) ? 2'd2 : 2'd0));
            random_frame({o, a, d});
            if (urand(0) % 400 == 0) begin
                @(negedge clk); check; cs_n = 1'b1; sclk = 1'b0;
                #2 rst_n = 1'b0;
                #1 model_reset;
                check;
                #1 rst_n = 1'b1;
                @(posedge clk); model_step;
            end
        end
        @(negedge clk);
        check;
        if (n_frames < 500 || n_armed < 5 || n_reads < 100) begin
            $display("coverage: frames=%0d armed=%0d reads=%0d", n_frames, n_armed, n_reads);
            errors = errors + 1;
        end
        if (errors == 0) $display("TEST PASSED (%0d frames, %0d keys, %0d reads)", n_frames, n_armed, n_reads);
        else             $display("TEST FAILED: %0d errors", errors);
        $finish;
    end
endmodule
